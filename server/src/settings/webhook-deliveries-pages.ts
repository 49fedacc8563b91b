import { Router, type Request, type Response } from 'express';

import { SCOPES } from '../api-keys/model';
import { isIdOf } from '../common/id-shapes';
import { RuleError } from '../common/rule-error';
import { serializeAttempt } from '../webhooks/attempts/serialize';
import { findDelivery } from '../webhooks/deliveries/find';
import { DELIVERY_EVENT_TYPES, readDeliveries, type DeliveryFilters } from '../webhooks/deliveries/read';
import { serializeDelivery } from '../webhooks/deliveries/serialize';
import { DELIVERY_STATUSES } from '../webhooks/model';
import { requeueDelivery } from '../webhooks/requeue';
import { viewerOf } from './viewer';
import type { Views } from './views';
import { WEBHOOKS as BASE, endpointOfPage, endpointView, noticeThen } from './webhook-views';

/** Deliveries a page of the log shows (GitHub's Recent Deliveries shows about as many). */
const PER_PAGE = 25;
const MAX_PAGE = 2_147_483_647;
const DAY_MS = 86_400_000;

/**
 * A Super Admin reads every event type (as on the API with every scope): the request bodies are
 * shown through the API's own rule (webhooks/deliveries/serialize.ts), answers' bodies as the
 * worker kept them (none for a destination that is not public, SPEC §22).
 */
const EVERY_SCOPE = [...SCOPES];

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
function filtersOf(req: Request): { query: FilterQuery; filters: DeliveryFilters; page: number; error?: string } {
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

/** What a delivery's state means to a person: pending before its first attempt, retrying after a failed one. */
function resultOf(d: { status: string; attempts: unknown }): string {
	if (d.status === 'pending') return Number(d.attempts) > 0 ? 'Retrying' : 'Pending';
	return d.status === 'delivered' ? 'Delivered' : 'Failed';
}

/**
 * Settings → Webhooks, one endpoint (SPEC §22, GitHub's "Recent Deliveries"): its settings and
 * actions, and its delivery log with filters (status, event type, a range of days) and paging;
 * each delivery opens to every attempt kept (time, status, duration, the request's headers and
 * body, the answer) with the next attempt when one is owed, and Redeliver at any time. Reads go
 * through the domain (webhooks/deliveries/read.ts, find.ts), the resend through the API's own
 * requeueDelivery. Mounted by settings/webhooks-pages.ts behind its Super Admin and plan checks.
 */
export function deliveryPages(views: Views): Router {
	const router = Router();
	const notFound = (req: Request, res: Response) => views.render(req, res, 'not-found.njk', {}, 404);

	router.get(`${BASE}/:endpointId`, async (req, res) => {
		const endpoint = await endpointOfPage(res, req.params.endpointId);
		if (!endpoint) return notFound(req, res);
		const path = `${BASE}/${endpoint.id}`;
		const { query, filters, page, error } = filtersOf(req);
		const { rows, total } = error
			? { rows: [], total: 0 }
			: await readDeliveries(viewerOf(res).organization.id, endpoint.id, filters, { page, perPage: PER_PAGE });
		const pages = Math.max(1, Math.ceil(total / PER_PAGE));
		await views.render(
			req,
			res,
			'webhook-endpoint.njk',
			{
				endpoint: endpointView(endpoint),
				statuses: DELIVERY_STATUSES,
				eventTypes: DELIVERY_EVENT_TYPES,
				query,
				filtered: Object.values(query).some((v) => v !== ''),
				filterError: error,
				deliveries: rows.map((row) => {
					const d = serializeDelivery(row, EVERY_SCOPE);
					return { ...d, result: resultOf(row) };
				}),
				paging: {
					total,
					page,
					pages,
					first: total === 0 ? 0 : (page - 1) * PER_PAGE + 1,
					last: Math.min(total, page * PER_PAGE),
					prev: page > 1 ? hrefOf(path, query, Math.min(page - 1, pages)) : null,
					next: page < pages ? hrefOf(path, query, page + 1) : null,
				},
			},
			error ? 400 : 200,
		);
	});

	router.get(`${BASE}/:endpointId/deliveries/:deliveryId`, async (req, res) => {
		const { endpointId, deliveryId } = req.params;
		const found =
			isIdOf('webhookEndpoint', endpointId) && isIdOf('webhookDelivery', deliveryId)
				? await findDelivery(viewerOf(res).organization.id, endpointId, deliveryId)
				: undefined;
		if (!found) return notFound(req, res);
		const delivery = serializeDelivery(found.delivery, EVERY_SCOPE);
		await views.render(req, res, 'webhook-delivery.njk', {
			endpoint: endpointView(found.endpoint),
			delivery: { ...delivery, result: resultOf(found.delivery) },
			// The newest first, as a person looks for what just happened; the newest one open.
			attempts: found.attempts.map(serializeAttempt).reverse(),
		});
	});

	/** Redeliver (SPEC §22): sent again now whatever its state; a pending one keeps its schedule after. */
	router.post(`${BASE}/:endpointId/deliveries/:deliveryId/redeliver`, async (req, res) => {
		const { endpointId, deliveryId } = req.params;
		try {
			const delivery =
				isIdOf('webhookEndpoint', endpointId) && isIdOf('webhookDelivery', deliveryId)
					? await requeueDelivery(viewerOf(res).organization.id, endpointId, deliveryId)
					: undefined;
			if (!delivery) return notFound(req, res);
			await noticeThen(
				req,
				res,
				`${BASE}/${endpointId}/deliveries/${deliveryId}`,
				'success',
				`${delivery.eventType} (${delivery.eventId}) is being sent again now: reload this page to see the new attempt.`,
			);
		} catch (err) {
			// The endpoint is disabled: said on the delivery's page.
			if (!(err instanceof RuleError)) throw err;
			await noticeThen(req, res, `${BASE}/${endpointId}/deliveries/${deliveryId}`, 'error', err.message);
		}
	});

	return router;
}
