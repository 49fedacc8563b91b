import { DataTypes, Model, type CreationOptional, type ForeignKey, type InferAttributes, type InferCreationAttributes, type NonAttribute, type Sequelize } from 'sequelize';

import { newId } from '../common/ids';
import type { Organization } from '../organizations/model';

/** In the order they were added: a key's stored list follows it, so new scopes go at the end. */
export const SCOPES = ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments', 'manage:webhooks', 'write:users'] as const;
export type Scope = (typeof SCOPES)[number];

/** Whether a key's expiry date (a Date, or ISO 8601 text from a raw read) has come; none: never. */
export function isPastExpiry(expiresAt: Date | string | null | undefined, now = new Date()): boolean {
	return expiresAt !== null && expiresAt !== undefined && new Date(expiresAt).getTime() <= now.getTime();
}

/** Whether a rotated key (its grace end a Date, or ISO 8601 text from a raw read) still works. */
export function isInGrace(status: string, graceUntil: Date | string | null | undefined, now = new Date()): boolean {
	return status === 'rotated' && graceUntil !== null && graceUntil !== undefined && new Date(graceUntil).getTime() > now.getTime();
}

/** The scopes of a stored, space-separated list. */
export function scopeList(scopes: string): Scope[] {
	return scopes.split(' ').filter(Boolean) as Scope[];
}

export const KEY_STATUSES = ['active', 'rotated', 'revoked'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

/** An API key as stored: a SHA-256 digest of the secret, never the secret itself. */
export class ApiKey extends Model<InferAttributes<ApiKey>, InferCreationAttributes<ApiKey>> {
	declare id: CreationOptional<string>;
	declare organizationId: ForeignKey<Organization['id']>;
	declare label: string;
	/** Space-separated, in the order of SCOPES. */
	declare scopes: string;
	declare status: CreationOptional<KeyStatus>;
	declare keyHash: string;
	/** `lms_` + first 4 + `…` + last 4: enough to recognise a key, useless to an attacker. */
	declare masked: string;
	declare createdBy: string;
	declare lastUsedAt: CreationOptional<Date | null>;
	declare revokedAt: CreationOptional<Date | null>;
	declare revokedBy: CreationOptional<string | null>;
	declare replacedBy: CreationOptional<string | null>;
	/** Chosen at creation, kept through rotations; null: the key never expires. */
	declare expiresAt: CreationOptional<Date | null>;
	/** A rotated key keeps working until then (SPEC §22, `expire_old_after`); null: it stopped at its rotation. */
	declare graceUntil: CreationOptional<Date | null>;
	/** When the "expires within 7 days" audit entry was written (once per key). */
	declare expiryRemindedAt: CreationOptional<Date | null>;
	/** When the "expired" audit entry was written (once per key). */
	declare expiryRecordedAt: CreationOptional<Date | null>;
	declare createdAt: CreationOptional<Date>;
	declare updatedAt: CreationOptional<Date>;

	get scopeList(): NonAttribute<Scope[]> {
		return scopeList(this.scopes);
	}

	/** An active key past its expiry date: refused like a revoked one, though its status stays. */
	isExpired(now = new Date()): NonAttribute<boolean> {
		return isPastExpiry(this.expiresAt, now);
	}

	/** A rotated key still inside the time it was given to keep working. */
	inGrace(now = new Date()): NonAttribute<boolean> {
		return isInGrace(this.status, this.graceUntil, now);
	}

	static initModel(sequelize: Sequelize): void {
		ApiKey.init(
			{
				id: { type: DataTypes.STRING(40), primaryKey: true, defaultValue: () => newId('key') },
				organizationId: { type: DataTypes.STRING(40), allowNull: false },
				label: { type: DataTypes.STRING(100), allowNull: false },
				scopes: { type: DataTypes.STRING(200), allowNull: false },
				status: {
					type: DataTypes.STRING(20),
					allowNull: false,
					defaultValue: 'active',
					validate: { isIn: [KEY_STATUSES] },
				},
				keyHash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
				masked: { type: DataTypes.STRING(20), allowNull: false },
				createdBy: { type: DataTypes.STRING(40), allowNull: false },
				lastUsedAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				revokedAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				revokedBy: { type: DataTypes.STRING(40), allowNull: true, defaultValue: null },
				replacedBy: { type: DataTypes.STRING(40), allowNull: true, defaultValue: null },
				expiresAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				graceUntil: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				expiryRemindedAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				expiryRecordedAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				createdAt: DataTypes.DATE,
				updatedAt: DataTypes.DATE,
			},
			{ sequelize, tableName: 'api_keys' },
		);
	}
}

const AUDIT_ACTIONS = [
	'key.created',
	'key.rotated',
	'key.revoked',
	'key.expiring',
	'key.expired',
	'webhook.created',
	'webhook.deleted',
	'webhook.rotated',
	'webhook.disabled',
	'webhook.enabled',
	'webhook.updated',
	// Passwords (users/set-password.ts, users/reset-links.ts): whose is in `userId`.
	'password.changed',
	'password.set',
	'password.link',
	'password.reset',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who did what to which key, from where. Written in the same transaction as the change. */
export class AuditEvent extends Model<InferAttributes<AuditEvent>, InferCreationAttributes<AuditEvent>> {
	declare id: CreationOptional<string>;
	declare organizationId: ForeignKey<Organization['id']>;
	declare action: AuditAction;
	/** The key concerned; for `webhook.*`, the endpoint's key ('' when it has none). */
	declare apiKeyId: string;
	/** For `webhook.*`: the endpoint concerned. */
	declare webhookEndpointId: CreationOptional<string | null>;
	/** For `password.*`: the user whose password it is. */
	declare userId: CreationOptional<string | null>;
	/** A user id, `cli` for the operator's console, a key id (a webhook created through the API), or `system` (expiry). */
	declare actor: string;
	/** What a person reads in the log: the user's email, or `cli`. */
	declare actorName: string;
	declare ip: string | null;
	declare userAgent: string | null;
	declare createdAt: CreationOptional<Date>;

	static initModel(sequelize: Sequelize): void {
		AuditEvent.init(
			{
				id: { type: DataTypes.STRING(40), primaryKey: true, defaultValue: () => newId('evt') },
				organizationId: { type: DataTypes.STRING(40), allowNull: false },
				action: { type: DataTypes.STRING(20), allowNull: false, validate: { isIn: [AUDIT_ACTIONS] } },
				apiKeyId: { type: DataTypes.STRING(40), allowNull: false },
				webhookEndpointId: { type: DataTypes.STRING(40), allowNull: true, defaultValue: null },
				userId: { type: DataTypes.STRING(40), allowNull: true, defaultValue: null },
				actor: { type: DataTypes.STRING(40), allowNull: false },
				actorName: { type: DataTypes.STRING(254), allowNull: false },
				ip: { type: DataTypes.STRING(64), allowNull: true },
				userAgent: { type: DataTypes.STRING(300), allowNull: true },
				createdAt: DataTypes.DATE,
			},
			{ sequelize, tableName: 'audit_events', updatedAt: false },
		);
	}
}
