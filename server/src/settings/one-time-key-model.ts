import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import { newId } from '../common/ids';

/** A new key's sealed secret, waiting for the one page view that may show it (see one-time-key.ts). */
export class OneTimeKeyRow extends Model<InferAttributes<OneTimeKeyRow>, InferCreationAttributes<OneTimeKeyRow>> {
	declare id: CreationOptional<string>;
	/** Sealed (common/seal.ts) under a key derived from SESSION_SECRET, bound to the row id. */
	declare sealed: string;
	declare createdAt: CreationOptional<Date>;

	static initModel(sequelize: Sequelize): void {
		OneTimeKeyRow.init(
			{
				id: { type: DataTypes.STRING(40), primaryKey: true, defaultValue: () => newId('otk') },
				sealed: { type: DataTypes.TEXT, allowNull: false },
				createdAt: DataTypes.DATE,
			},
			{ sequelize, tableName: 'one_time_keys', updatedAt: false },
		);
	}
}
