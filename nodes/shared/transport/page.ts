import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { LmsList } from '../types';
import { MAX_PER_PAGE } from './pagination';
import { lmsApiRequest, type LmsFunctions } from './request';

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
export async function lmsApiPage(
	this: LmsFunctions,
	endpoint: string,
	options: LmsPageOptions,
): Promise<LmsList> {
	const response = (await lmsApiRequest.call(this, {
		method: 'GET',
		endpoint,
		qs: { ...options.qs, page: options.page, per_page: options.perPage ?? MAX_PER_PAGE },
	})) as unknown as LmsList;
	const total = response?.pagination?.total;
	if (!Array.isArray(response?.data) || typeof total !== 'number' || !Number.isInteger(total) || total < 0) {
		throw new NodeOperationError(
			this.getNode(),
			`The answer from ${endpoint} is not an LMS list: check the Base URL in the credential`,
		);
	}
	return response;
}
