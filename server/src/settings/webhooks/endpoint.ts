import { DELIVERY_EVENT_TYPES, readDeliveries } from '../../webhooks/deliveries/read';
import { serializeDelivery } from '../../webhooks/deliveries/serialize';
import { DELIVERY_STATUSES } from '../../webhooks/model';
import { notFound, type PageHandler } from '../pages';
import { viewerOf } from '../viewer';
import { filtersOf, pageOf, pagingOf } from './delivery-filters';
import { EVERY_SCOPE, WEBHOOKS, endpointOfPage, endpointView, resultOf } from './views';

/**
 * GET /settings/webhooks/{id} (SPEC §22, GitHub's "Recent Deliveries"): the endpoint's settings and
 * actions, and its delivery log with filters (status, event type, a range of days) and paging.
 * Reads go through the domain (webhooks/deliveries/read.ts).
 */
export const endpointPage: PageHandler = async (req, res, deps) => {
	const endpoint = await endpointOfPage(res, req.params.endpointId);
	if (!endpoint) return notFound(req, res, deps);
	const { query, filters, page, error } = filtersOf(req);
	const { rows, total } = error ? { rows: [], total: 0 } : await readDeliveries(viewerOf(res).organization.id, endpoint.id, filters, pageOf(page));
	await deps.views.render(
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
			deliveries: rows.map((row) => ({ ...serializeDelivery(row, EVERY_SCOPE), result: resultOf(row) })),
			paging: pagingOf(`${WEBHOOKS}/${endpoint.id}`, query, page, total),
		},
		error ? 400 : 200,
	);
};
