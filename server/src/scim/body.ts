import type { Request } from 'express';
import SCIMMY from 'scimmy';

import { scimErrors } from './errors';
import { ENTERPRISE_SCHEMA, ScimUser, USER_SCHEMA, type UserResource } from './schema';
import { booleanOf } from './translate';

/** The request's JSON body as an object (express.json has parsed it; an array or nothing is refused). */
export function bodyObject(req: Request): Record<string, unknown> {
	const body: unknown = req.body;
	if (body === null || typeof body !== 'object' || Array.isArray(body)) {
		throw scimErrors.invalidSyntax('Send a JSON object as the body, with Content-Type: application/scim+json.');
	}
	return body as Record<string, unknown>;
}

/** Entra names the manager by its id alone (`"manager": "…"`): read as `{"value": "…"}`, as a PATCH reads it (patch-paths.ts). */
function bareManager(body: Record<string, unknown>): Record<string, unknown> {
	const key = Object.keys(body).find((k) => k.toLowerCase() === ENTERPRISE_SCHEMA.toLowerCase());
	const extension = key === undefined ? undefined : body[key];
	if (extension === null || typeof extension !== 'object' || Array.isArray(extension)) return {};
	const managerKey = Object.keys(extension).find((k) => k.toLowerCase() === 'manager');
	const manager = managerKey === undefined ? undefined : (extension as Record<string, unknown>)[managerKey];
	return typeof manager === 'string' ? { [key!]: { ...extension, [managerKey!]: { value: manager } } } : {};
}

/**
 * A User resource from a POST or PUT body, checked and coerced by scimmy against scim/schema.ts:
 * a value of the wrong type is 400 invalidValue; attributes the schema does not have are not kept
 * (RFC 7644 §3.3 lets a service provider ignore what it does not support); `schemas` must name
 * the core User schema (RFC 7643 §3).
 */
export function userFromBody(body: Record<string, unknown>): UserResource {
	const schemas = body.schemas;
	if (!Array.isArray(schemas) || !schemas.includes(USER_SCHEMA)) {
		throw scimErrors.invalidSyntax(`The body's "schemas" must list "${USER_SCHEMA}".`);
	}
	const input = { ...body, ...('active' in body ? { active: booleanOf(body.active) } : {}), ...bareManager(body) };
	try {
		return { ...new ScimUser(input, 'in') };
	} catch (err) {
		if (err instanceof SCIMMY.Types.Error) throw err;
		throw scimErrors.invalidValue(`${(err as Error).message}.`);
	}
}
