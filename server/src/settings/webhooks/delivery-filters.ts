import type { Request } from 'express';

import { DAY_MS } from '../../common/time';
import { MAX_PAGE } from '../../http/list';
import { DELIVERY_EVENT_TYPES, type DeliveryFilters } from '../../webhooks/deliveries/read';
import { DELIVERY_STATUSES } from '../../webhooks/model';


/** The log's filters as the page's query gives them (text, to put back in the form and the paging links). */
interface FilterQuery {
	status: string;
	event_type: string;
	from: string;
	to: string;
}

function queryText(req: Request, name: string): string {
	const value = (req.query as Record<string, unknown>)[name];
	return typeof value === 'string' ? value.trim() : '';
}

/** A YYYY-MM-DD that is a real day, as midnight UTC at its start; undefined otherwise. */
function dayStart(value: string): Date | undefined {
	if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
	const day = new Date(`${value}T00:00:00Z`);
	return Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value ? undefined : day;
}

/**
 * The page's query as the domain's filters (webhooks/deliveries/read.ts), or what is wrong with it
 * in the person's terms. The dates are whole days (UTC), both included: From is "created after the
 * instant before that day", To "created before the next day".
 */
export function filtersOf(req: Request): { query: FilterQuery; filters: DeliveryFilters; page: number; error?: string } {
	const query = { status: queryText(req, 'status'), event_type: queryText(req, 'event_type'), from: queryText(req, 'from'), to: queryText(req, 'to') };
	const pageText = queryText(req, 'page') || '1';
	const page = /^\d{1,10}$/.test(pageText) ? Number(pageText) : NaN;
	const [from, to] = [dayStart(query.from), dayStart(query.to)];
	const error =
		query.status && !(DELIVERY_STATUSES as readonly string[]).includes(query.status)
			? 'Choose a status from the list.'
			: query.event_type && !DELIVERY_EVENT_TYPES.includes(query.event_type)
				? 'Choose an event type from the list.'
				: (query.from && !from) || (query.to && !to)
					? 'Enter dates as YYYY-MM-DD (for example 2026-05-01).'
					: from && to && from > to
						? 'The From date must be on or before the To date.'
						: !(page >= 1 && page <= MAX_PAGE)
							? 'The page number must be a whole number from 1.'
							: undefined;
	const filters: DeliveryFilters = {
		status: query.status || undefined,
		eventType: query.event_type || undefined,
		createdAfter: from && new Date(from.getTime() - 1),
		createdBefore: to && new Date(to.getTime() + DAY_MS),
	};
	return { query, filters, page: error ? 1 : page, error };
}

/** The page's address with these filters at page `page` (empty filters left out). */
function hrefOf(path: string, query: FilterQuery, page: number): string {
	const kept = (Object.entries(query) as Array<[string, string]>).filter(([, v]) => v !== '');
	if (page > 1) kept.push(['page', String(page)]);
	const params = new URLSearchParams(kept).toString();
	return params ? `${path}?${params}` : path;
}

/** Deliveries a page of the log shows (GitHub's Recent Deliveries shows about as many). */
const PER_PAGE = 25;

/** The log's page `page` of `total` deliveries: where it starts and ends, and the links to the pages beside it. */
export function pagingOf(path: string, query: FilterQuery, page: number, total: number) {
	const pages = Math.max(1, Math.ceil(total / PER_PAGE));
	return {
		total,
		page,
		pages,
		first: total === 0 ? 0 : (page - 1) * PER_PAGE + 1,
		last: Math.min(total, page * PER_PAGE),
		prev: page > 1 ? hrefOf(path, query, Math.min(page - 1, pages)) : null,
		next: page < pages ? hrefOf(path, query, page + 1) : null,
	};
}

/** How many deliveries a page of the log shows, from which. */
export const pageOf = (page: number) => ({ page, perPage: PER_PAGE });
