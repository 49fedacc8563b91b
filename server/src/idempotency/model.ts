import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

/**
 * One Idempotency-Key of one organization (SPEC §18): claimed while its request runs, then the
 * first answer, kept until `expiresAt`.
 */
export class IdempotencyKey extends Model<InferAttributes<IdempotencyKey>, InferCreationAttributes<IdempotencyKey>> {
	declare id: CreationOptional<number>;
	declare organizationId: string;
	declare key: string;
	declare fingerprint: string;
	declare method: string;
	declare path: string;
	declare claimToken: string | null;
	declare claimedUntil: Date | null;
	declare responseStatus: CreationOptional<number | null>;
	declare responseHeaders: CreationOptional<string | null>;
	declare responseBody: CreationOptional<string | null>;
	declare expiresAt: Date;
	declare createdAt: CreationOptional<Date>;
	declare updatedAt: CreationOptional<Date>;

	static initModel(sequelize: Sequelize): void {
		IdempotencyKey.init(
			{
				id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
				organizationId: { type: DataTypes.STRING(40), allowNull: false },
				key: { type: DataTypes.STRING(255), allowNull: false },
				fingerprint: { type: DataTypes.STRING(64), allowNull: false },
				method: { type: DataTypes.STRING(10), allowNull: false },
				path: { type: DataTypes.STRING(2048), allowNull: false },
				claimToken: { type: DataTypes.STRING(40), allowNull: true },
				claimedUntil: { type: DataTypes.DATE, allowNull: true },
				responseStatus: { type: DataTypes.INTEGER, allowNull: true, defaultValue: null },
				responseHeaders: { type: DataTypes.TEXT, allowNull: true, defaultValue: null },
				responseBody: { type: DataTypes.TEXT, allowNull: true, defaultValue: null },
				expiresAt: { type: DataTypes.DATE, allowNull: false },
				createdAt: DataTypes.DATE,
				updatedAt: DataTypes.DATE,
			},
			{ sequelize, tableName: 'idempotency_keys' },
		);
	}
}
