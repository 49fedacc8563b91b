import { NodeOperationError, type IDataObject, type IExecuteFunctions, type INodeExecutionData, type NodeApiError } from 'n8n-workflow';

import { filterQuery, type FilterMap, type IdFieldOptions } from './descriptions';
import { locatorId, requiredLocatorId, type LmsRecordKind, LMS_RECORD_KINDS } from './locators';
import { asNodeError, lmsApiList, lmsApiRequest } from './transport';

/** One operation of one node: runs for one input item and returns the records it produced. */
export type LmsOperationExecute = (
	this: IExecuteFunctions,
	itemIndex: number,
) => Promise<IDataObject | IDataObject[]>;

/** What one input item gave: its records, or the error that failed it. */
export type LmsItemOutcome = { records: IDataObject | IDataObject[] } | { error: unknown };

/** The most input items one executeMany call gets: what the LMS's batch endpoints take. */
export const MAX_BATCH_ITEMS = 100;

export interface LmsOperation {
	execute: LmsOperationExecute;
	/**
	 * For operations the LMS can do in batches (SPEC §18): up to MAX_BATCH_ITEMS input items at
	 * once, with one outcome per item, in order. The item loop then calls this instead of execute.
	 */
	executeMany?: (this: IExecuteFunctions, itemIndexes: number[]) => Promise<LmsItemOutcome[]>;
	/** For a batch stopped by a failed item: how to run the whole input again safely. */
	rerunHint?: string;
}

/**
 * n8n adds "Custom API Call" to the Operation of every action node whose credential authenticates
 * requests by itself (the LMS API credential does), and shows beside it that the HTTP Request node
 * makes the call. A node run with it gets this value; it says the same, with the steps.
 */
const CUSTOM_API_CALL = '__CUSTOM_API_CALL__';
const CUSTOM_API_CALL_MESSAGE = 'Custom API Call runs in the HTTP Request node, with the LMS API credential';
const CUSTOM_API_CALL_HOW =
	'Add an HTTP Request node, set Authentication to "Predefined Credential Type" and Credential Type to "LMS API", ' +
	'and call your LMS Base URL followed by /api/v1/… (for example /api/v1/users?status=active). ' +
	'Every endpoint is described at /api/v1/openapi.json on your LMS.';

/** Runs execute for one item, as an outcome. */
export async function outcomeOf(
	this: IExecuteFunctions,
	execute: LmsOperationExecute,
	itemIndex: number,
): Promise<LmsItemOutcome> {
	try {
		return { records: await execute.call(this, itemIndex) };
	} catch (error) {
		return { error };
	}
}

/**
 * The item loop every LMS node shares, so pairing and Continue On Fail behave the same
 * everywhere: each record becomes its own output item paired with the input item that asked
 * for it, and a failing item either stops the node or becomes an error item, never both.
 */
export async function executeLmsOperation(
	this: IExecuteFunctions,
	operations: Record<string, LmsOperation>,
): Promise<INodeExecutionData[][]> {
	const operation = this.getNodeParameter('operation', 0) as string;
	if (operation === CUSTOM_API_CALL) {
		const error = new NodeOperationError(this.getNode(), CUSTOM_API_CALL_MESSAGE, { description: CUSTOM_API_CALL_HOW });
		if (!this.continueOnFail()) throw error;
		// Continue On Fail: every input item carries the same error on, as any failed item does.
		return [this.getInputData().map((_, item) => ({ json: { error: error.message }, error, pairedItem: { item } }))];
	}
	const selected = operations[operation];
	if (!selected) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" is not supported`);
	}

	const items = this.getInputData();
	const returnData: INodeExecutionData[] = [];
	const output = (itemIndex: number, outcome: LmsItemOutcome) => {
		if ('records' in outcome) {
			const records = Array.isArray(outcome.records) ? outcome.records : [outcome.records];
			for (const json of records) {
				returnData.push({ json, pairedItem: { item: itemIndex } });
			}
			return;
		}
		const nodeError = asNodeError(this.getNode(), outcome.error, itemIndex);
		if (!this.continueOnFail()) throw nodeError;
		// `error` on the item is what n8n routes down the error output when the node is set to
		// "Continue (using error output)"; n8n then reduces `json` to the message, as here.
		returnData.push({
			json: { error: nodeError.message },
			error: nodeError,
			pairedItem: { item: itemIndex },
		});
	};

	const { executeMany } = selected;
	if (executeMany) {
		// Batches of input items, each answered item by item: the output is the same as one
		// request per item would give, in the same order and pairing.
		const done: Done[] = [];
		for (let start = 0; start < items.length; start += MAX_BATCH_ITEMS) {
			const itemIndexes = Array.from({ length: Math.min(MAX_BATCH_ITEMS, items.length - start) }, (_, i) => start + i);
			const outcomes = await executeMany.call(this, itemIndexes);
			for (const [i, itemIndex] of itemIndexes.entries()) {
				const outcome = outcomes[i];
				if ('error' in outcome && !this.continueOnFail()) {
					// n8n shows no output of a node that stops: the error says what was done anyway.
					const sentWithIt = itemIndexes.slice(i + 1).flatMap((later, j) => doneOf(later, outcomes[i + 1 + j]));
					throw withProgress(asNodeError(this.getNode(), outcome.error, itemIndex), done, sentWithIt, selected.rerunHint);
				}
				output(itemIndex, outcome);
				done.push(...doneOf(itemIndex, outcome));
			}
		}
		return [returnData];
	}
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		output(itemIndex, await outcomeOf.call(this, selected.execute, itemIndex));
	}
	return [returnData];
}

/** An input item that succeeded, and the ids of the records it gave. */
interface Done {
	itemIndex: number;
	ids: string[];
}

function doneOf(itemIndex: number, outcome: LmsItemOutcome): Done[] {
	if (!('records' in outcome)) return [];
	const records = Array.isArray(outcome.records) ? outcome.records : [outcome.records];
	return [{ itemIndex, ids: records.map((record) => record.id).filter((id): id is string => typeof id === 'string') }];
}

/** `0, 1, 2, 5, 7, 8` → `0–2, 5, 7–8`. */
function ranges(indexes: number[]): string {
	const parts: string[] = [];
	for (let i = 0; i < indexes.length; ) {
		let j = i;
		while (j + 1 < indexes.length && indexes[j + 1] === indexes[j] + 1) j++;
		parts.push(i === j ? String(indexes[i]) : `${indexes[i]}–${indexes[j]}`);
		i = j + 1;
	}
	return parts.join(', ');
}

function named(done: Done[]): string {
	const ids = done.flatMap((entry) => entry.ids);
	const shown = ids.length <= 6 ? ids.join(', ') : `${ids.slice(0, 3).join(', ')} … ${ids.slice(-3).join(', ')}`;
	return `input item${done.length === 1 ? '' : 's'} ${ranges(done.map((entry) => entry.itemIndex))}${ids.length ? ` (${ids.length} record${ids.length === 1 ? '' : 's'}: ${shown})` : ''}`;
}

/**
 * The error of the item that stopped a batched run, with what was done before it and in the same
 * request after it: those changes are made in the LMS, though n8n shows no output for a node that
 * stopped.
 */
function withProgress<E extends NodeApiError | NodeOperationError>(error: E, before: Done[], sentWithIt: Done[], rerunHint?: string): E {
	if (before.length === 0 && sentWithIt.length === 0) return error;
	const parts = [error.description ?? ''];
	if (before.length) parts.push(`Done before it: ${named(before)}.`);
	if (sentWithIt.length) parts.push(`Sent in the same request and done too: ${named(sentWithIt)}.`);
	parts.push('Those changes are made in the LMS, though this run stops here without output. To see every item\'s outcome, set the node\'s Settings → On Error to "Continue (using error output)".');
	if (rerunHint) parts.push(rerunHint);
	error.description = parts.filter(Boolean).join(' ');
	return error;
}

/**
 * Reads a record ID parameter. An empty ID would turn `/users/{id}` into the list path, so it
 * is refused here with a message that names the field.
 */
export function requiredId(
	this: IExecuteFunctions,
	parameterName: string,
	label: string,
	itemIndex: number,
): string {
	const value = String(this.getNodeParameter(parameterName, itemIndex, '') ?? '').trim();
	if (!value) {
		throw new NodeOperationError(this.getNode(), `${label} is empty`, {
			itemIndex,
			description: `Enter the ${label}, or map it from an earlier node with an expression`,
		});
	}
	return value;
}

/** One record by its ID: `GET {endpoint}/{id}`. */
export async function getRecord(
	this: IExecuteFunctions,
	endpoint: string,
	id: string,
	itemIndex: number,
): Promise<IDataObject> {
	return await lmsApiRequest.call(this, {
		method: 'GET',
		endpoint: `${endpoint}/${encodeURIComponent(id)}`,
		itemIndex,
	});
}

/**
 * The execute of a Get operation: reads the ID parameter described by `idParameter` (the same
 * options its `idField` is built from) and gets that record.
 */
export function getExecute(
	endpoint: string,
	idParameter: Pick<IdFieldOptions, 'name' | 'displayName'>,
): (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject> {
	return async function (this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
		const id = requiredId.call(this, idParameter.name, idParameter.displayName, itemIndex);
		return await getRecord.call(this, endpoint, id, itemIndex);
	};
}

/**
 * The execute of a Get Many operation: Return All / Limit (see `returnAllAndLimit`) and, when
 * `filters` is given, the Filters collection sent as the query parameters it maps.
 */
export function getManyExecute(
	endpoint: string,
	filters?: FilterMap,
): (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject[]> {
	return listExecute(endpoint, { filters });
}

export interface ListExecuteOptions {
	/** Plain filters: query parameter → filter name. */
	filters?: FilterMap;
	/** Filters that are record pickers (locators.ts): query parameter → [filter name, record kind]. */
	locators?: Record<string, [string, LmsRecordKind]>;
	/** More query parameters computed from the Filters collection (e.g. expiry windows). */
	extraQuery?: (this: IExecuteFunctions, filters: IDataObject, itemIndex: number) => IDataObject;
}

/**
 * The execute of a Get Many operation: Return All / Limit (see `returnAllAndLimit`) and the
 * Filters collection sent as the query parameters `options` maps; pickers resolve to IDs first.
 */
export function listExecute(
	endpoint: string,
	options: ListExecuteOptions,
): (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject[]> {
	return async function (this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
		const returnAll = this.getNodeParameter('returnAll', itemIndex) as boolean;
		const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex) as number);
		const hasFilters = options.filters || options.locators || options.extraQuery;
		const filters = hasFilters ? (this.getNodeParameter('filters', itemIndex, {}) as IDataObject) : {};
		const qs: IDataObject = options.filters ? filterQuery(filters, options.filters) : {};
		for (const [queryName, [filterName, kind]] of Object.entries(options.locators ?? {})) {
			const label = `The ${LMS_RECORD_KINDS[kind].label} filter`;
			const id = await locatorId.call(this, kind, filters[filterName], label, itemIndex);
			if (id !== undefined) qs[queryName] = id;
		}
		Object.assign(qs, options.extraQuery?.call(this, filters, itemIndex));
		return await lmsApiList.call(this, endpoint, {
			returnAll,
			limit,
			qs: hasFilters ? qs : undefined,
			itemIndex,
		});
	};
}

/** The execute of a version-2 Get operation: the record picked in the `parameterName` locator. */
export function getByLocatorExecute(
	endpoint: string,
	kind: LmsRecordKind,
	parameterName: string,
	label: string,
): (this: IExecuteFunctions, itemIndex: number) => Promise<IDataObject> {
	return async function (this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
		const id = await requiredLocatorId.call(this, kind, parameterName, label, itemIndex);
		return await getRecord.call(this, endpoint, id, itemIndex);
	};
}
