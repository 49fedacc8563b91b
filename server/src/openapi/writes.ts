import { MAX_BATCH_ITEMS } from '../http/batch';

/**
 * What every write of the API shares in the document (SPEC §18): the Idempotency-Key header, the
 * Idempotent-Replayed header on a replayed answer, and the 409/422 a key can answer. Added to
 * every POST and PATCH of the document in one pass, so that a new write cannot miss it.
 */

/** A documented response: made by the document's problem() or ok(), or a reference to one. */
interface Response {
	description?: string;
	headers?: Record<string, object>;
	content?: Record<string, { schema: { properties?: { code?: { enum: string[] } } } }>;
	$ref?: string;
}

interface Operation {
	parameters?: object[];
	responses: Record<string, Response>;
}

type MakeProblem = (description: string, status: number, codes: string[], headers?: Record<string, object>) => Response;

const idempotencyKeyParameter = {
	name: 'Idempotency-Key',
	in: 'header',
	required: false,
	description:
		'1 to 255 printable ASCII characters (a UUID is a good key), bare or as the IETF draft\'s quoted string. The first answer (status and ' +
		'body; not a 400 or a 5xx) is kept 24 hours per organization and key: a retry with the same method, path and body gets it again with ' +
		'`Idempotent-Replayed: true` and changes nothing; the same key with another request answers 422 `idempotency_key_reused`; a retry ' +
		'while the first request still runs answers 409 `idempotency_key_in_use`. A key that is not 1 to 255 printable ASCII characters answers 400.',
	schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
};

const replayedHeader = {
	'Idempotent-Replayed': {
		description: '`true` when this is the kept answer of an earlier request with the same Idempotency-Key.',
		schema: { type: 'string', enum: ['true'] },
	},
};

const IN_USE = 'idempotency_key_in_use';
const REUSED = 'idempotency_key_reused';

/** Adds a code to a documented problem response, or makes the response. */
function withCode(existing: Response | undefined, code: string, description: string, make: () => Response, headers: Record<string, object> = {}): Response {
	const schema = existing?.content?.['application/problem+json']?.schema;
	const codes = schema?.properties?.code?.enum;
	if (!existing || !schema || !codes) return make();
	return {
		...existing,
		description: `${existing.description ?? ''} ${description}`.trim(),
		headers: { ...existing.headers, ...headers },
		content: {
			'application/problem+json': { schema: { ...schema, properties: { ...schema.properties, code: { enum: [...codes, code] } } } },
		},
	};
}

/**
 * Every POST and PATCH of `paths`, with the Idempotency-Key parameter, Idempotent-Replayed on its
 * 2xx answers, and `idempotency_key_in_use` (409) and `idempotency_key_reused` (422) among its
 * problems. `problem` makes a problem response as the document does.
 */
export function withIdempotency<T extends Record<string, object>>(paths: T, problem: MakeProblem): T {
	const retryAfter = { 'Retry-After': { description: 'On `idempotency_key_in_use`: seconds to wait.', schema: { type: 'integer' } } };
	const inUse = () => problem('A request with this Idempotency-Key is still running; retry after `Retry-After` seconds to get its answer.', 409, [IN_USE], retryAfter);
	const reused = () => problem('This Idempotency-Key was used in the last 24 hours for another request (another method, path or body).', 422, [REUSED]);
	const out: Record<string, object> = {};
	for (const [path, item] of Object.entries(paths)) {
		const written: Record<string, unknown> = { ...item };
		for (const method of ['post', 'patch']) {
			const operation = (item as Record<string, Operation | undefined>)[method];
			if (!operation) continue;
			const responses = { ...operation.responses };
			for (const [status, response] of Object.entries(responses)) {
				if (status.startsWith('2')) responses[status] = { ...response, headers: { ...response.headers, ...replayedHeader } };
			}
			responses['409'] = withCode(responses['409'], IN_USE, 'Or (`idempotency_key_in_use`) a request with this Idempotency-Key is still running.', inUse, retryAfter);
			responses['422'] = withCode(responses['422'], REUSED, 'Or (`idempotency_key_reused`) the Idempotency-Key was used for another request.', reused);
			written[method] = { ...operation, parameters: [...(operation.parameters ?? []), idempotencyKeyParameter], responses };
		}
		out[path] = written;
	}
	return out as T;
}

/**
 * The 200 of a batch endpoint: each item's status and body in order, the body being what the
 * single POST answers (`record`, or a problem).
 */
export function batchResult(record: object, problemSchema: object): object {
	return {
		type: 'object',
		additionalProperties: false,
		required: ['data'],
		properties: {
			data: {
				type: 'array',
				maxItems: MAX_BATCH_ITEMS,
				description: 'One entry per item, in the order sent.',
				items: {
					type: 'object',
					additionalProperties: false,
					required: ['index', 'status', 'body'],
					properties: {
						index: { type: 'integer', minimum: 0, maximum: MAX_BATCH_ITEMS - 1, description: 'The item\'s place in `items`, from 0.' },
						status: { type: 'integer', description: 'The status the single POST would answer for this item (201; 200 for an existing record an envelope option returns; a 4xx; 500 for an unexpected failure of this item).' },
						body: { anyOf: [record, problemSchema], description: 'What the single POST would answer: the new record, or a problem.' },
					},
				},
			},
		},
	};
}

/**
 * The request body of a batch endpoint: `{ "items": [ up to 100 bodies of the single POST ] }`,
 * and the envelope's options beside `items` when it takes any (`options`: their JSON Schema).
 */
export function batchBody(itemSchema: object, options?: { properties?: object }): object {
	return {
		type: 'object',
		additionalProperties: false,
		required: ['items'],
		properties: { items: { type: 'array', maxItems: MAX_BATCH_ITEMS, items: itemSchema }, ...options?.properties },
	};
}

export const batchDescription =
	`Up to ${MAX_BATCH_ITEMS} bodies of the single POST in one request (one count against the per-IP limit). Each item is answered exactly as its ` +
	'own POST would be, in order, one after another, each in its own transaction with its events: a refused item does not stop the ' +
	'others, and the answer is 200 whatever the items\' outcomes. A batch whose envelope is wrong (no `items`, more than ' +
	`${MAX_BATCH_ITEMS}, an item that is not a JSON object) answers 400 and runs nothing. An Idempotency-Key covers the whole batch.`;
