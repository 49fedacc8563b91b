import { Router } from 'express';

import { deleteEndpoint, findEndpoint, listEndpoints, recentDeliveries } from '../webhooks/service';
import { redirectAfterSave } from './session';
import { requireSignIn, requireSuperAdmin, viewerOf } from './viewer';
import type { Views } from './views';

const BASE = '/settings/webhooks';
const DELIVERY_ROWS = 50;

/**
 * Settings → Webhooks (SPEC §12): the organization's endpoints with their status, the latest
 * deliveries, and delete behind a confirmation. Endpoints are created through the API (n8n
 * subscribes itself), so there is no form to make one here. Enterprise only, like the API.
 */
export function webhookPages(views: Views): Router {
	const router = Router();
	router.use(BASE, requireSignIn, requireSuperAdmin(views), (req, res, next) => {
		if (viewerOf(res).hasApi) return next();
		return views.render(req, res, 'not-found.njk', {}, 404);
	});

	router.get(BASE, async (req, res) => {
		const organizationId = viewerOf(res).organization.id;
		const [endpoints, deliveries] = await Promise.all([listEndpoints(organizationId), recentDeliveries(organizationId, DELIVERY_ROWS)]);
		const urls = new Map(endpoints.map((e) => [e.id, e.url]));
		await views.render(req, res, 'webhooks.njk', {
			endpoints: endpoints.map((e) => ({
				id: e.id,
				url: e.url,
				events: e.eventList,
				description: e.description,
				status: e.status,
				failingSince: e.failingSince,
				disabledReason: e.disabledReason,
				createdAt: e.createdAt,
			})),
			deliveries: deliveries.map((d) => ({
				eventId: d.eventId,
				eventType: d.eventType,
				endpointUrl: urls.get(d.endpointId) ?? d.endpointId,
				status: d.status,
				httpStatus: d.lastStatusCode,
				error: d.lastError,
				attempts: d.attempts,
				at: d.lastAttemptAt ?? d.createdAt,
			})),
		});
	});

	router.get(`${BASE}/:endpointId/delete`, async (req, res) => {
		const endpoint = await findEndpoint(viewerOf(res).organization.id, req.params.endpointId);
		if (!endpoint) return views.render(req, res, 'not-found.njk', {}, 404);
		await views.render(req, res, 'confirm-webhook.njk', { endpoint: { id: endpoint.id, url: endpoint.url, events: endpoint.eventList } });
	});

	router.post(`${BASE}/:endpointId/delete`, async (req, res) => {
		const { organization, user } = viewerOf(res);
		const endpoint = await deleteEndpoint({
			organizationId: organization.id,
			id: req.params.endpointId,
			actor: { kind: 'user', id: user.id, name: user.email },
			origin: { ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null },
		});
		if (!endpoint) return views.render(req, res, 'not-found.njk', {}, 404);
		req.session.notice = { kind: 'success', text: `Deleted the webhook endpoint ${endpoint.url}: nothing more is sent to it.` };
		await redirectAfterSave(req, res, BASE);
	});

	return router;
}
