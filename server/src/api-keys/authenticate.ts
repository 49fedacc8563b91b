import { Op } from 'sequelize';

import { database } from '../db';
import type { Plan } from '../organizations/model';
import { AuthError } from './errors';
import { hashKey, isWellFormedKey } from './key-format';
import { ApiKey, isInGrace, isPastExpiry, scopeList, type Scope } from './model';
import { keyLookup, type KeyLookupRow } from './queries';

const LAST_USED_RESOLUTION_MS = 60_000;

/** Who is calling: the key (and what it may do) and its organization. */
export interface Caller {
	/** `oldKey`: a rotated key in its grace time (SPEC §22), logged as such. */
	apiKey: { id: string; scopeList: Scope[]; lastUsedAt: Date | null; oldKey?: true };
	organization: { id: string; plan: Plan };
}

/**
 * Resolves a bearer token to its key and organization, or throws the AuthError that says why
 * not. Reads the database on every call: a cache would let a revoked or rotated key through
 * for as long as it lived, on every instance that held it.
 */
export async function authenticate(token: string): Promise<Caller> {
	if (!isWellFormedKey(token)) throw new AuthError('invalid_api_key');
	const db = database();
	const [row] = await db.read<KeyLookupRow>(keyLookup(db), [hashKey(token)]);
	if (row === undefined) throw new AuthError('invalid_api_key');
	if (row.status === 'revoked') throw new AuthError('api_key_revoked');
	const oldKey = isInGrace(row.status, row.graceUntil);
	if (row.status === 'rotated' && !oldKey) throw new AuthError('api_key_rotated');
	if (isPastExpiry(row.expiresAt)) throw new AuthError('api_key_expired');
	if (row.organizationId === null || row.plan === null) throw new AuthError('invalid_api_key');
	const apiKey: Caller['apiKey'] = { id: row.id, scopeList: scopeList(row.scopes), lastUsedAt: row.lastUsedAt === null ? null : new Date(row.lastUsedAt) };
	if (oldKey) apiKey.oldKey = true;
	touchLastUsed(apiKey);
	return { apiKey, organization: { id: row.organizationId, plan: row.plan } };
}

/**
 * When this process last wrote each key's last_used_at. The row alone cannot say it: every
 * request that arrives before the first write commits reads the old value, and under load (16
 * connections) each of them built and sent its own UPDATE, a sixth of the server's CPU on a list
 * request (bench/api-overhead.ts). Cleared when it grows past the keys one process plausibly serves.
 */
const touched = new Map<string, number>();
const MAX_TOUCHED = 10_000;

/** At most one write a minute per key from each process, and the condition keeps it so across instances. */
function touchLastUsed(apiKey: Caller['apiKey']): void {
	const now = Date.now();
	const last = Math.max(apiKey.lastUsedAt?.getTime() ?? 0, touched.get(apiKey.id) ?? 0);
	if (now - last < LAST_USED_RESOLUTION_MS) return;
	if (touched.size >= MAX_TOUCHED) touched.clear();
	touched.set(apiKey.id, now);
	const staleBefore = new Date(now - LAST_USED_RESOLUTION_MS);
	ApiKey.update(
		{ lastUsedAt: new Date(now) },
		{
			where: {
				id: apiKey.id,
				[Op.or]: [{ lastUsedAt: null }, { lastUsedAt: { [Op.lt]: staleBefore } }],
			},
			silent: true,
		},
	).catch(() => {
		// Best effort: a busy database must not fail the caller's request over a timestamp.
	});
}
