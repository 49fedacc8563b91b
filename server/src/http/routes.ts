import { Router, type RequestHandler } from 'express';

import type { Scope } from '../api-keys/model';
import { requireApiKey, requireScope } from './auth';
import { methodNotAllowed } from './errors';

/**
 * A component's routes as data: path → method → the scope it needs and its handlers.
 * Mounting adds authentication and the scope check in front, and a 405 for other methods.
 */
export interface Operation {
	/** Omitted for public operations (the OpenAPI document). */
	scope?: Scope;
	handlers: RequestHandler[];
}

export type RouteTable = Record<string, Partial<Record<'get' | 'post', Operation>>>;

export function mountRoutes(router: Router, table: RouteTable): void {
	for (const [path, operations] of Object.entries(table)) {
		const route = router.route(path);
		for (const [method, operation] of Object.entries(operations) as Array<['get' | 'post', Operation]>) {
			const guards = operation.scope ? [requireApiKey, requireScope(operation.scope)] : [];
			route[method](...guards, ...operation.handlers);
		}
		route.all(methodNotAllowed(Object.keys(operations).map((m) => m.toUpperCase())));
	}
}
