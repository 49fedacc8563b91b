import express, { type Application, type RequestHandler } from 'express';
import type { Logger } from 'pino';

import type { Scope } from '../api-keys/model';
import { problems } from '../common/problem';
import type { Config } from '../config';
import { checkCaller, checkScope } from '../http/auth';
import type { LimitStore } from '../http/rate-limit-store';
import { projectionOf } from './attributes';
import { createUser } from './create';
import { deleteUser } from './delete';
import { resourceType, resourceTypes, schema, schemas, serviceProviderConfig } from './discovery';
import { methodNotAllowed, notImplemented, scimErrorHandler, scimNotFound } from './errors';
import { getUser } from './get';
import { createGroup } from './groups/create';
import { deleteGroup } from './groups/delete';
import { getGroup } from './groups/get';
import { listGroups } from './groups/list';
import { patchGroup } from './groups/patch';
import { replaceGroup } from './groups/replace';
import { createScimLimiter } from './limit';
import { listUsers } from './list';
import { patchUser } from './patch';
import { replaceUser } from './replace';

/** SCIM 2.0 (RFC 7643, 7644) for identity providers: SPEC §16. */
const SCIM_PREFIX = '/scim/v2';

/**
 * The same keys as /api/v1, checked the same way (http/auth.ts): reads need read:users, writes
 * write:users, discovery any key (the key itself is checked for every path, see mountScim).
 */
function guard(scope: Scope | 'any-key'): RequestHandler {
	return (_req, res, next) => {
		checkScope(res, scope);
		next();
	};
}

const SCIM_TYPES = ['application/scim+json', 'application/json'];

/** SCIM bodies come as application/scim+json (RFC 7644 §3.1) or, from Okta, application/json. */
const bodyOf = (limit: string): RequestHandler[] => [
	(req, _res, next) => {
		if (!req.is(SCIM_TYPES)) throw problems.unsupportedMediaType();
		next();
	},
	express.json({ limit, strict: true, type: SCIM_TYPES }),
];
const body = bodyOf('16kb');
/** A Group's body may name 1,000 members (scim/groups/change.ts), each with its display and $ref. */
const groupBody = bodyOf('512kb');

type Methods = Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', RequestHandler[]>>;

const ROUTES: Record<string, Methods> = {
	'/ServiceProviderConfig': { get: [guard('any-key'), serviceProviderConfig] },
	'/ResourceTypes': { get: [guard('any-key'), resourceTypes] },
	'/ResourceTypes/:id': { get: [guard('any-key'), resourceType] },
	'/Schemas': { get: [guard('any-key'), schemas] },
	'/Schemas/:id': { get: [guard('any-key'), schema] },
	'/Users': { get: [guard('read:users'), listUsers], post: [guard('write:users'), ...body, createUser] },
	// RFC 7644 §3.11: /Me is the authenticated subject; an API key is no user of the organization.
	'/Me': { get: [notImplemented('/Me')], post: [notImplemented('/Me')], put: [notImplemented('/Me')], patch: [notImplemented('/Me')], delete: [notImplemented('/Me')] },
	'/Users/:id': {
		get: [guard('read:users'), getUser],
		put: [guard('write:users'), ...body, replaceUser],
		patch: [guard('write:users'), ...body, patchUser],
		delete: [guard('write:users'), deleteUser],
	},
	'/Groups': { get: [guard('read:users'), listGroups], post: [guard('write:users'), ...groupBody, createGroup] },
	'/Groups/:id': {
		get: [guard('read:users'), getGroup],
		put: [guard('write:users'), ...groupBody, replaceGroup],
		patch: [guard('write:users'), ...groupBody, patchGroup],
		delete: [guard('write:users'), deleteGroup],
	},
};

/**
 * Mounts /scim/v2 on the app; every error under it, unknown paths included, is a SCIM error.
 * Every request is authenticated first, then counted by its key (scim/limit.ts; a request that
 * did not authenticate, by its address), whatever the path. `Cache-Control: no-store`: answers
 * hold people's records.
 */
export function mountScim(app: Application, limits: { config: Config; limitStore: LimitStore; logger: Logger }): void {
	const limit = createScimLimiter(limits.config, limits.limitStore, limits.logger);
	app.use(SCIM_PREFIX, async (req, res, next) => {
		res.setHeader('Cache-Control', 'no-store');
		try {
			await checkCaller(req, res, 'any-key');
		} finally {
			await limit(req, res);
		}
		// attributes= / excludedAttributes= are checked before any work, writes included.
		projectionOf(req.query);
		next();
	});
	for (const [path, methods] of Object.entries(ROUTES)) {
		const route = app.route(SCIM_PREFIX + path);
		for (const [method, handlers] of Object.entries(methods) as Array<[keyof Methods, RequestHandler[]]>) route[method](...handlers);
		route.all(methodNotAllowed(Object.keys(methods).map((m) => m.toUpperCase())));
	}
	app.use(SCIM_PREFIX, scimNotFound, scimErrorHandler);
}
