import { scimErrors } from './errors';
import { LIST_RESPONSE } from './schema';

/** At most this many resources per answer (ServiceProviderConfig's filter.maxResults). */
export const MAX_RESULTS = 100;

/** One query parameter as a single string, or undefined; a repeated one is refused. */
function single(query: Record<string, unknown>, name: string): string | undefined {
	const value = query[name];
	if (value === undefined) return undefined;
	if (typeof value !== 'string') throw scimErrors.invalidValue(`Give ${name} once.`);
	return value;
}

/** An integer parameter, or the fallback when absent. */
function integer(query: Record<string, unknown>, name: string, fallback: number): number {
	const text = single(query, name);
	if (text === undefined) return fallback;
	if (!/^-?\d{1,15}$/.test(text.trim())) throw scimErrors.invalidValue(`${name} must be an integer, e.g. ${name}=${fallback}.`);
	return Number(text.trim());
}

/**
 * What a list request asks (RFC 7644 §3.4.2): the filter, if any and not blank; startIndex and
 * count, integers, below 1 / below 0 read as 1 / 0, count capped at MAX_RESULTS.
 */
export function listRequest(query: Record<string, unknown>): { filter?: string; startIndex: number; count: number } {
	const filter = single(query, 'filter');
	return {
		filter: filter === undefined || filter.trim() === '' ? undefined : filter,
		startIndex: Math.max(1, integer(query, 'startIndex', 1)),
		count: Math.min(MAX_RESULTS, Math.max(0, integer(query, 'count', MAX_RESULTS))),
	};
}

/** A ListResponse of one page, 1-based. */
export function listResponse(totalResults: number, resources: object[], startIndex: number) {
	return { schemas: [LIST_RESPONSE], totalResults, Resources: resources, startIndex, itemsPerPage: resources.length };
}
