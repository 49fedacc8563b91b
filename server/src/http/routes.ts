import { Router, type RequestHandler } from 'express';

import type { Scope } from '../api-keys/model';
import { requireApiKey, requireScope } from './auth';
import { methodNotAllowed } from './errors';

/**
 * A component's routes as data: path → method → the scope it needs and its handlers.
 * Mounting adds authentication and the scope check in front, and a 405 for other methods.
 */
export interface Operation {
	/**
	 * Omitted for public operations (the OpenAPI document). `by-handler`: a key is required and
	 * the handler decides what its scopes allow (the event feed: one scope per event type).
	 */
	scope?: Scope | 'by-handler';
	handlers: RequestHandler[];
}

type Method = 'get' | 'post' | 'patch' | 'delete';

export type RouteTable = Record<string, Partial<Record<Method, Operation>>>;

export function mountRoutes(router: Router, table: RouteTable): void {
	for (const [path, operations] of Object.entries(table)) {
		const route = router.route(path);
		for (const [method, operation] of Object.entries(operations) as Array<[Method, Operation]>) {
			const { scope } = operation;
			const guards = scope === undefined ? [] : scope === 'by-handler' ? [requireApiKey] : [requireApiKey, requireScope(scope)];
			route[method](...guards, ...operation.handlers);
		}
		route.all(methodNotAllowed(Object.keys(operations).map((m) => m.toUpperCase())));
	}
}
