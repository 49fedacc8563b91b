import { statement } from '../db/reads';
import type { Plan } from '../organizations/model';
import type { KeyStatus } from './model';

/** What a request needs to know of its key and the key's organization. */
export interface KeyLookupRow {
	id: string;
	status: KeyStatus;
	scopes: string;
	lastUsedAt: Date | null;
	/** null when the organization is gone. */
	organizationId: string | null;
	plan: Plan | null;
}

/**
 * One indexed read (key_hash is unique) for the key and its organization, fresh on every
 * request; a LEFT JOIN so that the checks keep their order (revoked before organization).
 */
export const KEY_LOOKUP = statement(
	'SELECT k.id AS "id", k.status AS "status", k.scopes AS "scopes", k.last_used_at AS "lastUsedAt", ' +
		'o.id AS "organizationId", o.plan AS "plan" ' +
		'FROM api_keys k LEFT JOIN organizations o ON o.id = k.organization_id WHERE k.key_hash = $1',
	['lastUsedAt'],
);
