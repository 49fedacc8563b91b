import type { Database } from '../db';
import type { Plan } from '../organizations/model';
import type { KeyStatus } from './model';

/** What a request needs to know of its key and the key's organization. */
export interface KeyLookupRow {
	id: string;
	status: KeyStatus;
	scopes: string;
	/** ISO 8601. */
	lastUsedAt: string | null;
	/** ISO 8601; null: never expires. */
	expiresAt: string | null;
	/** ISO 8601; a rotated key works until then (SPEC §22). */
	graceUntil: string | null;
	/** null when the organization is gone. */
	organizationId: string | null;
	plan: Plan | null;
}

/**
 * One indexed read (key_hash is unique) for the key and its organization, fresh on every
 * request; a LEFT JOIN so that the checks keep their order (revoked before organization).
 */
export const keyLookup = (db: Database) =>
	`SELECT k.id AS "id", k.status AS "status", k.scopes AS "scopes", ${db.isoText('k.last_used_at')} AS "lastUsedAt", ` +
	`${db.isoText('k.expires_at')} AS "expiresAt", ${db.isoText('k.grace_until')} AS "graceUntil", ` +
	'o.id AS "organizationId", o.plan AS "plan" ' +
	'FROM api_keys k LEFT JOIN organizations o ON o.id = k.organization_id WHERE k.key_hash = $1';

/** What GET /api/v1/key shows of the calling key and its organization (never the secret or its digest). */
export interface KeyDescriptionRow {
	id: string;
	label: string;
	scopes: string;
	/** ISO 8601; null: never expires. */
	expiresAt: string | null;
	status: string;
	/** ISO 8601; a rotated key works until then. */
	graceUntil: string | null;
	organizationId: string;
	organizationName: string;
	organizationSlug: string;
}

export const keyDescription = (db: Database) =>
	`SELECT k.id AS "id", k.label AS "label", k.scopes AS "scopes", ${db.isoText('k.expires_at')} AS "expiresAt", ` +
	`k.status AS "status", ${db.isoText('k.grace_until')} AS "graceUntil", ` +
	'o.id AS "organizationId", o.name AS "organizationName", o.slug AS "organizationSlug" ' +
	'FROM api_keys k JOIN organizations o ON o.id = k.organization_id WHERE k.id = $1';
