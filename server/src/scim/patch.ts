import type { RequestHandler } from 'express';
import SCIMMY from 'scimmy';

import { callerOf } from '../http/auth';
import { changeUser } from '../users/change';
import { bodyObject } from './body';
import { scimErrors } from './errors';
import { checkIfMatch } from './etag';
import { checkPatchPath } from './filter-parse';
import { findUser, sendUser, stillThere } from './get';
import { keptOperation } from './patch-paths';
import { scimBase, userResource } from './resource';
import { PATCH_OP, ScimUser, type UserResource } from './schema';
import { booleanOf, wantedOf } from './translate';

/**
 * Entra's boolean strings ("False") where `active` is the target: by path, or as a key of a
 * path-less value. Any other value reaches scimmy as sent.
 */
function withBooleans(operation: unknown): unknown {
	if (operation === null || typeof operation !== 'object' || Array.isArray(operation)) return operation;
	const { path, value } = operation as { path?: unknown; value?: unknown };
	if (typeof path === 'string' && path.trim().toLowerCase() === 'active') return { ...operation, value: booleanOf(value) };
	if (path === undefined && value !== null && typeof value === 'object' && !Array.isArray(value)) {
		const fixed = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k.toLowerCase() === 'active' ? booleanOf(v) : v]));
		return { ...operation, value: fixed };
	}
	return operation;
}

/**
 * PATCH /scim/v2/Users/{id} (RFC 7644 §3.5.2): scimmy checks the PatchOp and applies its add /
 * replace / remove operations (op names in any case, as Entra sends "Replace"; paths such as
 * `name.givenName` and `emails[type eq "work"].value`; path-less values) to the user as SCIM shows
 * it; what changed goes through the same change as PATCH /api/v1/users/{id}. An empty Operations
 * list, which Entra may send when nothing it maps changed, changes nothing and answers the user
 * (RFC 7644 asks for at least one operation; refusing it would only make the provider retry).
 */
export const patchUser: RequestHandler = async (req, res) => {
	const body = bodyObject(req);
	const operations = body.Operations;
	// Every path is bounded before anything reads it (scimmy expands a path's filter).
	if (Array.isArray(operations)) for (const op of operations) if (typeof (op as { path?: unknown })?.path === 'string') checkPatchPath((op as { path: string }).path);
	const organizationId = callerOf(res).organization.id;
	const row = await findUser(organizationId, String(req.params.id));
	checkIfMatch(req, row);
	// Operations on attributes the LMS does not keep are ignored; one that leaves none is an empty PATCH.
	const kept = Array.isArray(operations) ? operations.map(keptOperation).filter((op) => op !== undefined) : operations;
	if (Array.isArray(kept) && kept.length === 0) {
		if (!Array.isArray(body.schemas) || !body.schemas.includes(PATCH_OP)) throw scimErrors.invalidSyntax(`The body's "schemas" must be ["${PATCH_OP}"].`);
		sendUser(res, 200, row);
		return;
	}
	// scimmy checks the message itself (schemas, each op's shape): a bad one is its 400.
	const request = { ...body, Operations: Array.isArray(kept) ? kept.map(withBooleans) : kept };
	const message = new SCIMMY.Messages.PatchOp(request as ConstructorParameters<typeof SCIMMY.Messages.PatchOp>[0]);
	const before = userResource(row, scimBase(req));
	let patched: UserResource | undefined;
	try {
		patched = (await message.apply(new ScimUser(before, 'out')));
	} catch (err) {
		if (err instanceof SCIMMY.Types.Error) throw err;
		throw scimErrors.invalidValue(`${(err as Error).message}.`);
	}
	if (patched === undefined) {
		sendUser(res, 200, row);
		return;
	}
	// userName is required (RFC 7643 §4.1.1): a remove of it cannot leave the user without one.
	if (patched.userName === undefined || patched.userName.trim() === '') throw scimErrors.invalidValue('userName is required and cannot be removed: give it a new value instead.');
	const wanted = wantedOf(before, { ...patched }, { externalIdGiven: true, whole: false });
	const { user } = await changeUser(organizationId, row.id, wanted, 'api', (locked) => {
		stillThere(locked);
		checkIfMatch(req, locked);
	});
	sendUser(res, 200, user);
};
