import { DataTypes, Model, type CreationOptional, type ForeignKey, type InferAttributes, type InferCreationAttributes, type Sequelize, type Transaction } from 'sequelize';

import { newId } from '../common/ids';
import type { Organization } from '../organizations/model';
import { indexRecords, normalize, unindexRecord, wordSuffixes } from '../search/words';
import { EMAIL_MAX_LENGTH, EMAIL_RULE, isEmailAddress } from './email';
import { PROFILE_MAX_LENGTH } from './profile';
import { USERNAME_MAX_LENGTH } from './username';

export const ROLES = ['student', 'instructor', 'admin', 'super_admin'] as const;
export type Role = (typeof ROLES)[number];

/** SPEC §16: a deactivated user cannot sign in or be enrolled; the record and its history stay. */
export const USER_STATUSES = ['active', 'deactivated'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
	declare id: CreationOptional<string>;
	declare organizationId: ForeignKey<Organization['id']>;
	declare name: string;
	declare email: string;
	/** Lower-cased email: the unique login identity and the case-insensitive filter. */
	declare emailLower: CreationOptional<string>;
	/**
	 * SCIM's userName (SPEC §21), apart from the e-mail: the e-mail unless set apart. Unique within
	 * the organization ignoring case, through usernameLower.
	 */
	declare username: CreationOptional<string>;
	declare usernameLower: CreationOptional<string>;
	/** The name parts SCIM wrote, as JSON text (scim/names.ts); null while SCIM never wrote them. */
	declare scimNames: CreationOptional<string | null>;
	/** The profile (SPEC §21): the enterprise extension's title, department, employeeNumber, manager.value; each null until set. */
	declare title: CreationOptional<string | null>;
	declare department: CreationOptional<string | null>;
	/** Lower-cased department: `users?department=` ignores case. */
	declare departmentLower: CreationOptional<string | null>;
	declare employeeNumber: CreationOptional<string | null>;
	declare managerId: CreationOptional<string | null>;
	declare role: Role;
	/** scrypt hash for accounts that sign in to the settings pages; null for API-only records. */
	declare passwordHash: string | null;
	declare status: CreationOptional<UserStatus>;
	/** The HR system's or identity provider's id for the person; unique within the organization. */
	declare externalId: CreationOptional<string | null>;
	declare deactivatedAt: CreationOptional<Date | null>;
	/** Set by SCIM DELETE (SPEC §21): the SCIM resource is gone; cleared by any reactivation. */
	declare scimDeletedAt: CreationOptional<Date | null>;
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
					// The lower-cased twin moves with the e-mail, so an update saves both (a hook
					// running at validation would change it too late for save() to write it).
					set(this: User, value: unknown) {
						this.setDataValue('email', value as string);
						if (typeof value === 'string') this.setDataValue('emailLower', value.toLowerCase());
						// A new user's username defaults to the e-mail (SPEC §21); bulkCreate runs no hooks, so here.
						if (typeof value === 'string' && (this.getDataValue('username') ?? null) === null) this.username = value;
					},
					validate: {
						isEmailAddress(value: unknown) {
							if (typeof value !== 'string' || !isEmailAddress(value)) throw new Error(`email must be ${EMAIL_RULE}`);
						},
					},
				},
				emailLower: { type: DataTypes.STRING(254), allowNull: false },
				username: {
					type: DataTypes.STRING(USERNAME_MAX_LENGTH),
					allowNull: false,
					set(this: User, value: unknown) {
						if (typeof value !== 'string') return;
						this.setDataValue('username', value);
						this.setDataValue('usernameLower', value.toLowerCase());
					},
				},
				usernameLower: { type: DataTypes.STRING(USERNAME_MAX_LENGTH), allowNull: false, field: 'username_lower' },
				scimNames: { type: DataTypes.TEXT, allowNull: true, defaultValue: null, field: 'scim_names' },
				title: { type: DataTypes.STRING(PROFILE_MAX_LENGTH), allowNull: true, defaultValue: null },
				department: {
					type: DataTypes.STRING(PROFILE_MAX_LENGTH),
					allowNull: true,
					defaultValue: null,
					set(this: User, value: unknown) {
						this.setDataValue('department', value as string | null);
						this.setDataValue('departmentLower', typeof value === 'string' ? value.toLowerCase() : null);
					},
				},
				departmentLower: { type: DataTypes.STRING(PROFILE_MAX_LENGTH), allowNull: true, defaultValue: null, field: 'department_lower' },
				employeeNumber: { type: DataTypes.STRING(PROFILE_MAX_LENGTH), allowNull: true, defaultValue: null, field: 'employee_number' },
				managerId: { type: DataTypes.STRING(PROFILE_MAX_LENGTH), allowNull: true, defaultValue: null, field: 'manager_id' },
				role: { type: DataTypes.STRING(20), allowNull: false, validate: { isIn: [ROLES] } },
				passwordHash: { type: DataTypes.STRING(200), allowNull: true, defaultValue: null },
				status: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'active', validate: { isIn: [USER_STATUSES] } },
				externalId: { type: DataTypes.STRING(255), allowNull: true, defaultValue: null },
				deactivatedAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				scimDeletedAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null, field: 'scim_deleted_at' },
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
					// A new name or e-mail replaces the old texts, in the changing transaction.
					afterUpdate: async (user, options) => {
						if (!user.changed('name') && !user.changed('email')) return;
						const old = { name: user.previous('name') ?? user.name, email: user.previous('email') ?? user.email };
						await unindexRecord('user', { ...user.get(), texts: textsOf(old) }, options.transaction);
						await indexUsers([user], options.transaction);
					},
				},
			},
		);
	}
}

/** What a user search may start with: the e-mail, and the name from each word on. */
const textsOf = (user: { name: string; email: string }) => [normalize(user.email), ...wordSuffixes(user.name)];

const indexUsers = (users: readonly User[], transaction: Transaction | null | undefined) =>
	indexRecords(
		'user',
		users.map((u) => ({ id: u.id, organizationId: u.organizationId, texts: textsOf(u) })),
		transaction,
	);
