import type { Application, RequestHandler } from 'express';

import type { Scope } from '../api-keys/model';
import { checkCaller } from './auth';
import { methodNotAllowed } from './errors';

/**
 * A component's routes as data: path → method → the scope it needs and its handlers.
 * Mounting puts them under /api/v1 and adds `Cache-Control: no-store`, authentication and the
 * scope check in front, and a 405 for other methods.
 */
export interface Operation {
	/**
	 * Omitted for public operations (the OpenAPI document). `by-handler`: a key is required and
	 * the handler decides what its scopes allow (the event feed: one scope per event type).
	 * `any-key`: a key is required, whatever its scopes (GET /key: who am I).
	 */
	scope?: Scope | 'by-handler' | 'any-key';
	handlers: RequestHandler[];
}

type Method = 'get' | 'post' | 'patch' | 'delete';

export type RouteTable = Record<string, Partial<Record<Method, Operation>>>;

/** Every route table is the API's: mounted under this prefix, on the app itself. */
const API_PREFIX = '/api/v1';

/**
 * What runs before an operation's handlers, as one route step: `Cache-Control: no-store` (answers
 * hold an organization's records: no browser or proxy cache may keep a copy), then the key and
 * scope checks.
 */
function guard(scope: Operation['scope']): RequestHandler {
	return async (req, res, next) => {
		res.setHeader('Cache-Control', 'no-store');
		if (scope !== undefined) await checkCaller(req, res, scope);
		next();
	};
}

export function mountRoutes(app: Application, table: RouteTable): void {
	for (const [path, operations] of Object.entries(table)) {
		const route = app.route(API_PREFIX + path);
		for (const [method, operation] of Object.entries(operations) as Array<[Method, Operation]>) {
			route[method](guard(operation.scope), ...operation.handlers);
		}
		// A 405 is a problem, which sets Cache-Control itself (sendProblem).
		route.all(methodNotAllowed(Object.keys(operations).map((m) => m.toUpperCase())));
	}
}
