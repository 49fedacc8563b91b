import type { Database } from '../db';

/** $1 the user, $2 the new hash. */
export const SET_PASSWORD_HASH = 'UPDATE users SET password_hash = $2 WHERE id = $1';

/** $1: a LIKE pattern of the user's sessions (users/change.ts endSessions); $2: the session to keep ('' for none). */
export const END_OTHER_SESSIONS = 'DELETE FROM sessions WHERE data LIKE $1 AND sid <> $2';

/** $1 digest, $2 user, $3 organization, $4 expiry, $5 now (ISO 8601). */
export const INSERT_RESET_LINK = (db: Database) =>
	`INSERT INTO password_reset_links (token_hash, user_id, organization_id, expires_at, used_at, created_at)
	VALUES ($1, $2, $3, ${db.storedTime('$4')}, NULL, ${db.storedTime('$5')})`;

/** The user a link still opens: $1 digest, $2 now. */
export const OPEN_RESET_LINK = (db: Database) =>
	`SELECT user_id FROM password_reset_links WHERE token_hash = $1 AND used_at IS NULL AND expires_at > ${db.storedTime('$2')}`;

/**
 * Uses a link up, if it is still open: $1 digest, $2 now. A conditional UPDATE, so of two
 * requests racing with the same link exactly one gets its row back (PostgreSQL re-checks
 * `used_at` after the first commits; SQLite's writers take turns).
 */
export const CLAIM_RESET_LINK = (db: Database) =>
	`UPDATE password_reset_links SET used_at = ${db.storedTime('$2')}
	WHERE token_hash = $1 AND used_at IS NULL AND expires_at > ${db.storedTime('$2')}
	RETURNING user_id`;

/** A new password voids every link still open for the user: $1 user, $2 now. */
export const VOID_RESET_LINKS = (db: Database) =>
	`UPDATE password_reset_links SET used_at = ${db.storedTime('$2')} WHERE user_id = $1 AND used_at IS NULL`;
