import { DataTypes, Model, type CreationOptional, type ForeignKey, type InferAttributes, type InferCreationAttributes, type Sequelize, type Transaction } from 'sequelize';

import { newId } from '../common/ids';
import type { Organization } from '../organizations/model';
import { indexRecords, normalize, wordSuffixes } from '../search/words';
import { EMAIL_MAX_LENGTH, EMAIL_RULE, isEmailAddress } from './email';

export const ROLES = ['student', 'instructor', 'admin', 'super_admin'] as const;
export type Role = (typeof ROLES)[number];

export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
	declare id: CreationOptional<string>;
	declare organizationId: ForeignKey<Organization['id']>;
	declare name: string;
	declare email: string;
	/** Lower-cased email: the unique login identity and the case-insensitive filter. */
	declare emailLower: CreationOptional<string>;
	declare role: Role;
	/** scrypt hash for accounts that sign in to the settings pages; null for API-only records. */
	declare passwordHash: string | null;
	declare createdAt: CreationOptional<Date>;
	declare updatedAt: CreationOptional<Date>;

	static initModel(sequelize: Sequelize): void {
		User.init(
			{
				id: { type: DataTypes.STRING(40), primaryKey: true, defaultValue: () => newId('usr') },
				organizationId: { type: DataTypes.STRING(40), allowNull: false },
				name: { type: DataTypes.STRING(200), allowNull: false },
				email: {
					type: DataTypes.STRING(EMAIL_MAX_LENGTH),
					allowNull: false,
					validate: {
						isEmailAddress(value: unknown) {
							if (typeof value !== 'string' || !isEmailAddress(value)) throw new Error(`email must be ${EMAIL_RULE}`);
						},
					},
				},
				emailLower: { type: DataTypes.STRING(254), allowNull: false },
				role: { type: DataTypes.STRING(20), allowNull: false, validate: { isIn: [ROLES] } },
				passwordHash: { type: DataTypes.STRING(200), allowNull: true, defaultValue: null },
				createdAt: DataTypes.DATE,
				updatedAt: DataTypes.DATE,
			},
			{
				sequelize,
				tableName: 'users',
				hooks: {
					beforeValidate: (user) => {
						if (typeof user.email === 'string') user.emailLower = user.email.toLowerCase();
					},
					// The search index is written in the creating transaction, whoever creates the user.
					afterCreate: (user, options) => indexUsers([user], options.transaction),
					afterBulkCreate: (users, options) => indexUsers(users, options.transaction),
				},
			},
		);
	}
}

const indexUsers = (users: readonly User[], transaction: Transaction | null | undefined) =>
	indexRecords(
		User.sequelize!,
		'user',
		users.map((u) => ({ id: u.id, organizationId: u.organizationId, texts: [normalize(u.email), ...wordSuffixes(u.name)] })),
		transaction,
	);
