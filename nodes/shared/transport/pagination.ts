import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { LmsList } from '../types';
import { lmsApiRequest, type LmsFunctions } from './request';

/** The API's largest page: the fewest requests against the 100-per-minute limit. */
export const MAX_PER_PAGE = 100;

export interface LmsPagesOptions {
	/** Filters; sent unchanged with every page. */
	qs?: IDataObject;
	perPage?: number;
	startPage?: number;
	itemIndex?: number;
}

function notAList(this: LmsFunctions, endpoint: string, itemIndex?: number): NodeOperationError {
	return new NodeOperationError(
		this.getNode(),
		`The answer from ${endpoint} is not an LMS list: check the Base URL in the credential`,
		{ itemIndex },
	);
}

/** One GET of a list endpoint, checked to hold a `data` array. */
async function requestPage(this: LmsFunctions, endpoint: string, qs: IDataObject, itemIndex?: number): Promise<LmsList> {
	const response = (await lmsApiRequest.call(this, { method: 'GET', endpoint, qs, itemIndex })) as unknown as LmsList;
	if (!Array.isArray(response?.data)) throw notAList.call(this, endpoint, itemIndex);
	return response;
}

export interface LmsPageOptions {
	/** 1-based page number. */
	page: number;
	perPage?: number;
	/** Filters, sent unchanged. */
	qs?: IDataObject;
}

/**
 * One page of a list, for callers that jump around a list instead of walking it from the start
 * (the trigger reads the page holding its cursor, then the pages after it). The answer is
 * checked to be an LMS list with a numeric `total`, because the caller does arithmetic on it.
 */
export async function lmsApiPage(this: LmsFunctions, endpoint: string, options: LmsPageOptions): Promise<LmsList> {
	const response = await requestPage.call(this, endpoint, {
		...options.qs,
		page: options.page,
		per_page: options.perPage ?? MAX_PER_PAGE,
	});
	const total = response.pagination?.total;
	if (typeof total !== 'number' || !Number.isInteger(total) || total < 0) throw notAList.call(this, endpoint);
	return response;
}

/**
 * Walks a list page by page, yielding each page as the API sent it. Stops after the page that
 * reaches `total` (`page × per_page ≥ total`, using the numbers the server echoes back), or at an
 * empty page, so a total that changes under us cannot make it loop forever.
 */
export async function* lmsApiPages(
	this: LmsFunctions,
	endpoint: string,
	options: LmsPagesOptions = {},
): AsyncGenerator<LmsList> {
	const perPage = options.perPage ?? MAX_PER_PAGE;
	for (let page = options.startPage ?? 1; ; page++) {
		const response = await requestPage.call(this, endpoint, { ...options.qs, page, per_page: perPage }, options.itemIndex);
		yield response;
		const pagination = response.pagination;
		if (response.data.length === 0 || !pagination) return;
		if (pagination.page * pagination.per_page >= pagination.total) return;
	}
}

export interface LmsListOptions {
	qs?: IDataObject;
	returnAll: boolean;
	/** Ignored when returnAll is true. */
	limit?: number;
	itemIndex?: number;
}

/**
 * Return All walks every page at the largest page size. Limit N asks for pages of min(N, 100)
 * and stops as soon as it holds N records, so a small limit costs exactly one request.
 */
export async function lmsApiList(
	this: LmsFunctions,
	endpoint: string,
	options: LmsListOptions,
): Promise<IDataObject[]> {
	const limit = options.returnAll ? Infinity : Number(options.limit);
	if (!options.returnAll && !(Number.isInteger(limit) && limit >= 1)) {
		throw new NodeOperationError(this.getNode(), 'Limit must be a whole number of at least 1', {
			itemIndex: options.itemIndex,
		});
	}
	const perPage = options.returnAll ? MAX_PER_PAGE : Math.min(limit, MAX_PER_PAGE);
	const records: IDataObject[] = [];
	const pages = lmsApiPages.call(this, endpoint, {
		qs: options.qs,
		perPage,
		itemIndex: options.itemIndex,
	});
	for await (const page of pages) {
		records.push(...page.data);
		if (records.length >= limit) return records.slice(0, limit);
	}
	return records;
}
