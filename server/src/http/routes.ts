import type { Application, RequestHandler } from 'express';

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

export interface MountOptions {
	/** Prepended to every path of the table. */
	prefix?: string;
	/** Run first by every operation (a 405 is a problem, which sets its own headers). */
	before?: RequestHandler[];
}

export function mountRoutes(app: Application, table: RouteTable, { prefix = '', before = [] }: MountOptions = {}): void {
	for (const [path, operations] of Object.entries(table)) {
		const route = app.route(prefix + path);
		for (const [method, operation] of Object.entries(operations) as Array<[Method, Operation]>) {
			const { scope } = operation;
			const guards = scope === undefined ? [] : scope === 'by-handler' ? [requireApiKey] : [requireApiKey, requireScope(scope)];
			route[method](...before, ...guards, ...operation.handlers);
		}
		route.all(methodNotAllowed(Object.keys(operations).map((m) => m.toUpperCase())));
	}
}
