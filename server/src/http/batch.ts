import type Joi from 'joi';

import { problems, type FieldError } from '../common/problem';
import { answerOf, ok, problemAnswer, type Answer, type WriteHandler, type WriteRequest } from './answer';
import { parseBody } from './validate';

/**
 * A batch endpoint (SPEC §18: POST /api/v1/enrollments/batch, /users/batch) made from the single
 * POST's write handler: `{ "items": [ up to 100 bodies ] }` → 200 `{ "data": [ { "index",
 * "status", "body" } ] }`, each item answered exactly as its own POST would be. Items run one
 * after another, in order, each through the single POST's code (its own transaction and events),
 * so two items that collide answer as two requests sent in that order would. One request, so one
 * count for the per-IP limit; an Idempotency-Key covers the whole batch (http/idempotency.ts).
 */

export const MAX_BATCH_ITEMS = 100;

interface BatchItem {
	index: number;
	status: number;
	body: unknown;
}

/**
 * Checks the envelope before any item runs, so a malformed batch changes nothing: a 400 naming
 * `items` (missing, not a list, more than 100) or each item that is not a JSON object
 * (`items[3]`), or a field the envelope does not take. An item that is an object with wrong
 * fields is that item's own 400. `optionNames` are the envelope fields a batch takes beside
 * `items` (checked by its own schema).
 */
function itemsOf(body: unknown, optionNames: readonly string[]): unknown[] {
	const sample = 'Send {"items": [ {…}, {…} ]}, each item the body of one POST.';
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		throw problems.invalidRequest([{ param: 'body', code: 'invalid_type', message: `The body must be a JSON object. ${sample}` }]);
	}
	const errors: FieldError[] = Object.keys(body)
		.filter((name) => name !== 'items' && !optionNames.includes(name))
		.map((name) => ({
			param: name,
			code: 'unknown_field',
			message: `Unknown field ${name.slice(0, 64)}: send only ${['items', ...optionNames].join(' and ')}.`,
		}));
	const items = (body as { items?: unknown }).items;
	if (items === undefined) {
		errors.unshift({ param: 'items', code: 'required', message: `items is required. ${sample}` });
	} else if (!Array.isArray(items)) {
		errors.unshift({ param: 'items', code: 'invalid_type', message: `items must be a list of request bodies. ${sample}` });
	} else if (items.length > MAX_BATCH_ITEMS) {
		errors.unshift({
			param: 'items',
			code: 'too_many_items',
			message: `items holds ${items.length} bodies; a batch takes at most ${MAX_BATCH_ITEMS}. Split it into several batches.`,
		});
	} else {
		items.forEach((item, index) => {
			if (typeof item !== 'object' || item === null || Array.isArray(item)) {
				errors.push({ param: `items[${index}]`, code: 'invalid_type', message: `items[${index}] must be a JSON object (the body of one POST).` });
			}
		});
	}
	if (errors.length > 0) throw problems.invalidRequest(errors);
	return items as unknown[];
}

/**
 * What a batch endpoint takes beside `items`, for every item alike (enrollments: `if_exists`):
 * the schema of those envelope fields, checked before any item runs.
 */
export type BatchOptionsSchema<Options> = Joi.ObjectSchema<Options>;

/**
 * The write handler of a batch endpoint whose items are answered by `item`. `prepare`, when
 * given, reads what all the items need at once before the first of them runs (enrollments: the
 * students, courses and existing enrollments of the batch, in three statements rather than three
 * per item), and each item is given what it read; the rules and the writes stay the item's. If
 * it fails, no item has run: the batch answers 500 and changed nothing. `optionsSchema`, when
 * given, names the envelope fields beside `items`; each item is given their values.
 */
export function batchOf<Reads, Options extends object = Record<string, never>>(
	item: (request: WriteRequest, reads?: Reads, options?: Options) => Promise<Answer>,
	prepare?: (request: WriteRequest, bodies: readonly unknown[]) => Promise<Reads>,
	optionsSchema?: BatchOptionsSchema<Options>,
): WriteHandler {
	const optionNames = optionsSchema === undefined ? [] : Object.keys((optionsSchema.describe().keys as object | undefined) ?? {});
	return async (request) => {
		const items = itemsOf(request.body, optionNames);
		const envelope = Object.fromEntries(Object.entries(request.body as object).filter(([name]) => name !== 'items'));
		const options = optionsSchema === undefined ? undefined : parseBody(optionsSchema, envelope);
		const reads = prepare === undefined ? undefined : await prepare(request, items);
		const handler: WriteHandler = (itemRequest) => item(itemRequest, reads, options);
		const data: BatchItem[] = [];
		const kept: BatchItem[] = [];
		let failure: unknown;
		let changed = false;
		for (const [index, body] of items.entries()) {
			let answer: Answer;
			try {
				answer = await answerOf(handler, { ...request, body });
			} catch (err) {
				// A bug behind one item does not take the others' answers away: this item says 500
				// (with the batch's request id, under which the error is logged), the batch is not
				// kept for its Idempotency-Key, and the items after it still run.
				failure ??= err;
				answer = problemAnswer(problems.internal(), request.requestId);
			}
			// A refusal changes nothing (each item runs in its own transaction); a success may, unless it says otherwise.
			if (answer.status < 300 && answer.unchanged === undefined) changed = true;
			data.push({ index, status: answer.status, body: answer.body });
			kept.push({ index, status: answer.status, body: answer.keptBody ?? answer.body });
		}
		const answer = ok({ data });
		// What a replay shows, when an item's first answer held a secret shown once.
		if (kept.some((entry, i) => entry.body !== data[i].body)) answer.keptBody = { data: kept };
		if (failure !== undefined) answer.failure = failure;
		if (!changed) answer.unchanged = true;
		return answer;
	};
}
