import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { outcomeOf, type LmsItemOutcome } from './execute';
import { asNodeError, httpFailureOf, idempotencyKeyFor, lmsAnswerError, lmsApiRequest, lmsProblemOf } from './transport';

/**
 * Creates for many input items as one request (SPEC §18: `POST {endpoint}/batch`, up to 100
 * bodies, each answered as its own POST would be), so a node's output is what one request per
 * item gives — records, the node's own handling of a refusal, errors with the same messages — at a
 * hundredth of the requests against the LMS's per-IP limit. One body goes as a plain POST; an LMS
 * without the batch endpoint gets one POST per item.
 */

/** One input item's body, once the node has read its parameters. */
export interface BatchEntry {
	itemIndex: number;
	body: IDataObject;
}

export interface BatchOptions {
	/** The single POST's path, e.g. `/users`; the batch goes to `{endpoint}/batch`. */
	endpoint: string;
	/** What the records are, for the error when the answer is not the LMS's. */
	label: string;
	/** The input items of this call, in order (the Idempotency-Key names the first and last). */
	itemIndexes: number[];
	/** Per input item: its body, or the error reading its parameters gave. */
	read: (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject> | IDataObject;
	/** One item as a single request (the node's execute for that body). */
	one: (this: IExecuteFunctions, entry: BatchEntry) => Promise<IDataObject | IDataObject[]>;
	/** A refused item of the batch: the node's handling of that error (throw it, or recover). */
	refused: (this: IExecuteFunctions, error: unknown, entry: BatchEntry) => Promise<IDataObject | IDataObject[]>;
	/**
	 * Fields of the batch request beside `items` (enrollments: `if_exists`). An LMS that does not
	 * know them refuses the batch with a 400 naming one; the batch then goes again without them.
	 */
	envelope?: IDataObject;
}

/** Node runs whose LMS has no batch endpoint (an older server): they go on one item per request. */
const withoutBatches = new WeakSet<object>();
/** Node runs whose LMS refused the envelope's options (an older server): their batches go without them. */
const withoutEnvelope = new WeakSet<object>();

/** A 400 naming one of the envelope's fields: an LMS older than that option. */
function refusesEnvelope(error: unknown, envelope: IDataObject): boolean {
	const problem = lmsProblemOf(error);
	return problem?.code === 'invalid_request' && (problem.errors ?? []).some((entry) => entry.param !== undefined && entry.param in envelope);
}

/** 404/405 for the batch path: the LMS predates batches. */
function isMissingBatchEndpoint(error: unknown): boolean {
	const status = error instanceof NodeApiError ? Number(error.httpCode) : httpFailureOf(error).status;
	return status === 404 || status === 405;
}

interface BatchAnswer {
	data: Array<{ index: number; status: number; body: unknown }>;
}

function isBatchAnswer(body: IDataObject, count: number): boolean {
	const data = (body as unknown as BatchAnswer).data;
	return Array.isArray(data) && data.length === count && data.every((entry, i) => entry?.index === i && typeof entry.status === 'number');
}

export async function createInBatch(this: IExecuteFunctions, options: BatchOptions): Promise<LmsItemOutcome[]> {
	const { endpoint, itemIndexes } = options;
	const outcomes: LmsItemOutcome[] = [];
	const toSend: Array<BatchEntry & { at: number }> = [];
	for (const [at, itemIndex] of itemIndexes.entries()) {
		try {
			toSend.push({ at, itemIndex, body: await options.read.call(this, itemIndex) });
		} catch (error) {
			outcomes[at] = { error };
		}
	}
	const oneByOne = async () => {
		for (const entry of toSend) {
			outcomes[entry.at] = await outcomeOf.call(this, async () => await options.one.call(this, entry), entry.itemIndex);
		}
		return outcomes;
	};
	if (toSend.length === 0) return outcomes;
	if (toSend.length === 1 || withoutBatches.has(this)) return await oneByOne();

	const batchEndpoint = `${endpoint}/batch`;
	const items = `i${itemIndexes[0]}-${itemIndexes[itemIndexes.length - 1]}`;
	const send = async (envelope: IDataObject | undefined) =>
		await lmsApiRequest.call(this, {
			method: 'POST',
			endpoint: batchEndpoint,
			body: { items: toSend.map((entry) => entry.body), ...envelope },
			itemIndex: toSend[0].itemIndex,
			// One key for the batch, from the input items it serves: a retry sends the same batch.
			// Without the envelope's options it is another request, so another key.
			idempotencyKey: idempotencyKeyFor(this, options.envelope && !envelope ? `${items}-plain` : items, 'POST', batchEndpoint),
		});
	const envelope = options.envelope && !withoutEnvelope.has(this) ? options.envelope : undefined;
	let answer: IDataObject;
	try {
		try {
			answer = await send(envelope);
		} catch (error) {
			if (!envelope || !refusesEnvelope(error, envelope)) throw asNodeError(this.getNode(), error, toSend[0].itemIndex);
			withoutEnvelope.add(this);
			answer = await send(undefined);
		}
	} catch (error) {
		if (isMissingBatchEndpoint(error)) {
			withoutBatches.add(this);
			return await oneByOne();
		}
		// Nothing was answered item by item (no key, no network, …): every item has that failure.
		for (const entry of toSend) outcomes[entry.at] = { error };
		return outcomes;
	}
	if (!isBatchAnswer(answer, toSend.length)) {
		const error = new NodeOperationError(this.getNode(), `The answer to ${options.label} batch is not from the LMS API: check the Base URL in the credential`, {
			itemIndex: toSend[0].itemIndex,
		});
		for (const entry of toSend) outcomes[entry.at] = { error };
		return outcomes;
	}
	for (const [i, { status, body }] of (answer as unknown as BatchAnswer).data.entries()) {
		const entry = toSend[i];
		if (status >= 200 && status < 300) {
			outcomes[entry.at] = { records: body as IDataObject };
			continue;
		}
		const error = await lmsAnswerError.call(
			this,
			{ status, body },
			{ method: 'POST', endpoint, body: entry.body, itemIndex: entry.itemIndex },
			{ endpoint: batchEndpoint, position: i },
		);
		outcomes[entry.at] = await outcomeOf.call(this, async () => await options.refused.call(this, error, entry), entry.itemIndex);
	}
	return outcomes;
}
