import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import { newId } from '../common/ids';

export const PLANS = ['enterprise', 'business', 'starter'] as const;
export type Plan = (typeof PLANS)[number];

export class Organization extends Model<InferAttributes<Organization>, InferCreationAttributes<Organization>> {
	declare id: CreationOptional<string>;
	declare name: string;
	declare slug: string;
	declare plan: Plan;
	declare createdAt: CreationOptional<Date>;
	declare updatedAt: CreationOptional<Date>;

	static initModel(sequelize: Sequelize): void {
		Organization.init(
			{
				id: { type: DataTypes.STRING(40), primaryKey: true, defaultValue: () => newId('org') },
				name: { type: DataTypes.STRING(200), allowNull: false },
				slug: { type: DataTypes.STRING(63), allowNull: false, unique: true },
				plan: { type: DataTypes.STRING(20), allowNull: false, validate: { isIn: [PLANS] } },
				createdAt: DataTypes.DATE,
				updatedAt: DataTypes.DATE,
			},
			{ sequelize, tableName: 'organizations' },
		);
	}
}
