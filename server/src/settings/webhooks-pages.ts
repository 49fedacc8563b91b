import { Router, type Request, type Response } from 'express';

import { RuleError } from '../common/rule-error';
import type { WebhookConfig } from '../config';
import type { SentRequest } from '../webhooks/exchange';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from '../webhooks/event-types';
import { endpointInput } from '../webhooks/endpoint-input';
import { requeueDelivery } from '../webhooks/requeue';
import { rotateSecret } from '../webhooks/rotate-secret';
import { createEndpoint, deleteEndpoint, findEndpoint, listEndpoints, recentDeliveries } from '../webhooks/service';
import { setEndpointStatus } from '../webhooks/set-status';
import { queueTestEvent } from '../webhooks/test-event';
import { isWebhookSecret, type OneTimeKeyBox } from './one-time-key';
import { redirectAfterSave, saveSession } from './session';
import { asViewer, listField, requireSignIn, requireSuperAdmin, textField, viewerOf } from './viewer';
import type { Views } from './views';

const BASE = '/settings/webhooks';
const DELIVERY_ROWS = 50;

interface EndpointForm {
	url?: string;
	events?: string[];
	description?: string;
	error?: string;
}

/** What a form field of the new endpoint's form broke, in the person's terms. */
const FIELD_ERRORS: Record<string, string> = {
	url: 'Enter the URL the LMS should post events to (http:// or https://, at most 2,048 characters, no control characters).',
	events: 'Choose at least one event type, or "Every event type".',
	description: 'The description must be at most 500 characters of plain text.',
};

/**
 * Settings → Webhooks (SPEC §12, §19): the organization's endpoints (id, status, a failing badge),
 * adding one (its secret shown once), disable and enable, a test event, secret rotation (shown
 * once), delete behind a confirmation, and the latest deliveries with their request, response and
 * a Resend button. Every change goes through the same webhooks/ functions as the API, with the
 * same rules and audit; this file only turns forms into calls and results into pages.
 * Enterprise only, like the API.
 */
export function webhookPages(views: Views, oneTimeKeys: OneTimeKeyBox, config: WebhookConfig): Router {
	const router = Router();
	router.use(BASE, requireSignIn, requireSuperAdmin(views), (req, res, next) => {
		if (viewerOf(res).hasApi) return next();
		return views.render(req, res, 'not-found.njk', {}, 404);
	});

	async function renderPage(req: Request, res: Response, form: EndpointForm = {}, status = 200): Promise<void> {
		const organizationId = viewerOf(res).organization.id;
		const [endpoints, deliveries] = await Promise.all([listEndpoints(organizationId), recentDeliveries(organizationId, DELIVERY_ROWS)]);
		const byId = new Map(endpoints.map((e) => [e.id, e]));
		await views.render(
			req,
			res,
			'webhooks.njk',
			{
				eventTypes: [ALL_EVENTS, ...WEBHOOK_EVENT_TYPES],
				form: { url: form.url ?? '', events: form.events ?? [], description: form.description ?? '', error: form.error },
				endpoints: endpoints.map((e) => ({
					id: e.id,
					url: e.url,
					events: e.eventList,
					description: e.description,
					status: e.status,
					// Failing: its latest attempts failed and none succeeded since (cleared by the next success).
					failingSince: e.status === 'enabled' ? e.failingSince : null,
					disabledReason: e.disabledReason,
					createdAt: e.createdAt,
				})),
				deliveries: deliveries.map((d) => ({
					id: d.id,
					endpointId: d.endpointId,
					endpointEnabled: byId.get(d.endpointId)?.status === 'enabled',
					eventId: d.eventId,
					eventType: d.eventType,
					endpointUrl: byId.get(d.endpointId)?.url ?? d.endpointId,
					status: d.status,
					httpStatus: d.lastStatusCode,
					error: d.lastError,
					attempts: d.attempts,
					at: d.lastAttemptAt ?? d.createdAt,
					request: d.lastRequest ? (JSON.parse(d.lastRequest) as SentRequest) : null,
					response: d.lastStatusCode === null ? null : { status: d.lastStatusCode, body: d.lastResponseBody },
				})),
			},
			status,
		);
	}

	/** After an action: back to the list with a notice (POST → 303 → GET). */
	async function backWith(req: Request, res: Response, kind: 'success' | 'error', text: string): Promise<void> {
		req.session.notice = { kind, text };
		await redirectAfterSave(req, res, BASE);
	}

	/** A rule the domain refused (disabled endpoint, pending delivery…): said on the list, as it is. */
	async function refused(req: Request, res: Response, err: unknown): Promise<void> {
		if (!(err instanceof RuleError)) throw err;
		await backWith(req, res, 'error', err.message);
	}

	router.get(BASE, async (req, res) => {
		await renderPage(req, res);
	});

	router.post(BASE, async (req, res) => {
		const url = textField(req, 'url').trim();
		const events = listField(req, 'events');
		const description = textField(req, 'description').trim();
		const form = { url, events, description };
		// The API's own rule for these fields (webhooks/endpoint-input.ts).
		const { error } = endpointInput.validate({ url, events, description }, { abortEarly: true });
		if (error) {
			const name = String(error.details[0]?.path[0] ?? 'url');
			return renderPage(req, res, { ...form, error: FIELD_ERRORS[name] ?? error.message }, 422);
		}
		try {
			const { endpoint, secret } = await createEndpoint({
				url,
				events,
				description: description || null,
				// A Super Admin reads every type: the endpoint has no key to bound it (webhooks/service.ts).
				apiKeyId: null,
				config,
				...asViewer(req, res),
			});
			await oneTimeKeys.put(req, { kind: 'webhook', endpointId: endpoint.id, url: endpoint.url, action: 'created', secret });
			await redirectAfterSave(req, res, `${BASE}/secret`);
		} catch (err) {
			// A refused URL (not public, unresolvable) or a full organization: said with the form.
			if (!(err instanceof RuleError)) throw err;
			await renderPage(req, res, { ...form, error: err.message }, 422);
		}
	});

	/** The one page that shows a signing secret, once (the keys page's mechanism: settings/one-time-key.ts). */
	router.get(`${BASE}/secret`, async (req, res) => {
		const shown = await oneTimeKeys.take(req);
		if (!shown || !isWebhookSecret(shown)) return redirectAfterSave(req, res, BASE);
		await saveSession(req);
		await views.render(req, res, 'webhook-secret.njk', { shown });
	});

	for (const status of ['enabled', 'disabled'] as const) {
		router.post(`${BASE}/:endpointId/${status === 'enabled' ? 'enable' : 'disable'}`, async (req, res) => {
			try {
				const endpoint = await setEndpointStatus({ id: req.params.endpointId, status, ...asViewer(req, res) });
				if (!endpoint) return views.render(req, res, 'not-found.njk', {}, 404);
				const text =
					status === 'enabled'
						? `Enabled ${endpoint.url}: new events are sent to it again.`
						: `Disabled ${endpoint.url}: nothing is sent to it until it is enabled again.`;
				await backWith(req, res, 'success', text);
			} catch (err) {
				await refused(req, res, err);
			}
		});
	}

	router.post(`${BASE}/:endpointId/test`, async (req, res) => {
		try {
			const delivery = await queueTestEvent(viewerOf(res).organization.id, req.params.endpointId);
			if (!delivery) return views.render(req, res, 'not-found.njk', {}, 404);
			await backWith(req, res, 'success', `A webhook.test event (${delivery.eventId}) is on its way: reload this page to see its delivery.`);
		} catch (err) {
			await refused(req, res, err);
		}
	});

	router.post(`${BASE}/:endpointId/rotate`, async (req, res) => {
		const rotated = await rotateSecret({ id: req.params.endpointId, config, ...asViewer(req, res) });
		if (!rotated) return views.render(req, res, 'not-found.njk', {}, 404);
		await oneTimeKeys.put(req, {
			kind: 'webhook',
			endpointId: rotated.endpoint.id,
			url: rotated.endpoint.url,
			action: 'rotated',
			secret: rotated.secret,
			previousUntil: rotated.previousUntil.toISOString(),
		});
		await redirectAfterSave(req, res, `${BASE}/secret`);
	});

	router.post(`${BASE}/:endpointId/deliveries/:deliveryId/resend`, async (req, res) => {
		try {
			const delivery = await requeueDelivery(viewerOf(res).organization.id, req.params.endpointId, req.params.deliveryId);
			if (!delivery) return views.render(req, res, 'not-found.njk', {}, 404);
			await backWith(req, res, 'success', `${delivery.eventType} (${delivery.eventId}) is being sent again: reload this page to see the new attempt.`);
		} catch (err) {
			await refused(req, res, err);
		}
	});

	router.get(`${BASE}/:endpointId/delete`, async (req, res) => {
		const endpoint = await findEndpoint(viewerOf(res).organization.id, req.params.endpointId);
		if (!endpoint) return views.render(req, res, 'not-found.njk', {}, 404);
		await views.render(req, res, 'confirm-webhook.njk', { endpoint: { id: endpoint.id, url: endpoint.url, events: endpoint.eventList } });
	});

	router.post(`${BASE}/:endpointId/delete`, async (req, res) => {
		const endpoint = await deleteEndpoint({ id: req.params.endpointId, ...asViewer(req, res) });
		if (!endpoint) return views.render(req, res, 'not-found.njk', {}, 404);
		await backWith(req, res, 'success', `Deleted the webhook endpoint ${endpoint.url}: nothing more is sent to it.`);
	});

	return router;
}
