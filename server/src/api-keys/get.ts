import type { RequestHandler } from 'express';

import { database } from '../db';
import { callerOf } from '../http/auth';
import { parseQuery } from '../http/validate';
import { keyDescription, type KeyDescriptionRow } from './queries';
import { AuthError } from './errors';
import { serializeCurrentKey } from './serialize';

/**
 * GET /api/v1/key (SPEC §19): the calling key as its holder may know it, for any valid key
 * whatever its scopes. An answer here proves two things a client cannot learn otherwise: the
 * address is the LMS's API, and the key authenticates (an unknown path answers 404 before any
 * key is checked). The n8n credential test calls it, and shows the organization and scopes.
 */
export const getCurrentKey: RequestHandler = async (req, res) => {
	const caller = callerOf(res);
	parseQuery({}, req.query);
	const db = database();
	const [row] = await db.read<KeyDescriptionRow>(keyDescription(db), [caller.apiKey.id]);
	// The key authenticated a moment ago; only its organization's removal since then leaves no row.
	if (!row) throw new AuthError('invalid_api_key');
	res.json(serializeCurrentKey(row));
};
