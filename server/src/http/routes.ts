import type { Application, RequestHandler } from 'express';

import type { Scope } from '../api-keys/model';
import type { Answer, WriteHandler, WriteRequest } from './answer';
import { checkCaller } from './auth';
import { batchOf, type BatchOptionsSchema } from './batch';
import { methodNotAllowed } from './errors';
import { idempotencyKeyOf, writeStep } from './idempotency';
import { BATCH_BODY_LIMIT, BODY_LIMIT, jsonBodyOf } from './json-body';

/**
 * A component's routes as data: path → method → the scope it needs and its handlers.
 * Mounting puts them under /api/v1 and adds `Cache-Control: no-store`, authentication and the
 * scope check in front, and a 405 for other methods. Writes (POST, PATCH) are WriteOperations:
 * mounting adds the JSON body and the Idempotency-Key to each of them.
 */
interface Operation {
	/**
	 * Omitted for public operations (the OpenAPI document). `by-handler`: a key is required and
	 * the handler decides what its scopes allow (the event feed: one scope per event type).
	 * `any-key`: a key is required, whatever its scopes (GET /key: who am I).
	 */
	scope?: Scope | 'by-handler' | 'any-key';
	handlers: RequestHandler[];
}

/**
 * A POST or PATCH: a JSON body, and an answer returned rather than sent (http/answer.ts), so that
 * it can be kept for an Idempotency-Key and reused by a batch.
 */
interface WriteOperation {
	scope: Scope;
	write: WriteHandler;
	/** Largest body taken; BODY_LIMIT (16 KiB) unless set (a batch takes more). */
	bodyLimit?: string;
}

export type RouteTable = Record<string, { get?: Operation; delete?: Operation; post?: WriteOperation; patch?: WriteOperation }>;

interface CollectionHandlers<Reads, Options extends object> {
	list: RequestHandler;
	create: (request: WriteRequest, reads?: Reads, options?: Options) => Promise<Answer>;
	get: RequestHandler;
	update: WriteHandler;
	readForBatch?: (request: WriteRequest, bodies: readonly unknown[]) => Promise<Reads>;
	/** The batch envelope's fields beside `items` (http/batch.ts), handed to each create. */
	batchOptions?: BatchOptionsSchema<Options>;
}

/**
 * A collection the API both reads and writes (users, enrollments): list and create, up to 100
 * creates in one request (SPEC §18), get and update one. The batch path comes before /:id, which
 * would otherwise take it (and answer 405). `readForBatch`, when given, reads what a batch's items
 * need at once before the first runs, and each create is given it (http/batch.ts), with the
 * batch's `batchOptions`.
 */
export function collectionRoutes<Reads, Options extends object = Record<string, never>>(
	path: string,
	read: Scope,
	write: Scope,
	{ list, create, get, update, readForBatch, batchOptions }: CollectionHandlers<Reads, Options>,
): RouteTable {
	return {
		[path]: { get: { scope: read, handlers: [list] }, post: { scope: write, write: create } },
		[`${path}/batch`]: { post: { scope: write, write: batchOf(create, readForBatch, batchOptions), bodyLimit: BATCH_BODY_LIMIT } },
		[`${path}/:id`]: { get: { scope: read, handlers: [get] }, patch: { scope: write, write: update } },
	};
}

/** Every route table is the API's: mounted under this prefix, on the app itself. */
const API_PREFIX = '/api/v1';

/**
 * What runs before an operation's handlers, as one route step: `Cache-Control: no-store` (answers
 * hold an organization's records: no browser or proxy cache may keep a copy), then the key and
 * scope checks, then for a write its Idempotency-Key's shape (validation comes after the scope).
 */
function guard(scope: Operation['scope'], write = false): RequestHandler {
	return async (req, res, next) => {
		res.setHeader('Cache-Control', 'no-store');
		if (scope !== undefined) await checkCaller(req, res, scope);
		if (write) res.locals.idempotencyKey = idempotencyKeyOf(req);
		next();
	};
}

export function mountRoutes(app: Application, table: RouteTable): void {
	for (const [path, operations] of Object.entries(table)) {
		const route = app.route(API_PREFIX + path);
		for (const method of ['get', 'delete'] as const) {
			const operation = operations[method];
			if (operation) route[method](guard(operation.scope), ...operation.handlers);
		}
		for (const method of ['post', 'patch'] as const) {
			const operation = operations[method];
			if (operation) route[method](guard(operation.scope, true), ...jsonBodyOf(operation.bodyLimit ?? BODY_LIMIT), writeStep(operation.write));
		}
		// A 405 is a problem, which sets Cache-Control itself (sendProblem).
		route.all(methodNotAllowed(Object.keys(operations).map((m) => m.toUpperCase())));
	}
}
