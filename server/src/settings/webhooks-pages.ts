import { Router, type Request, type Response } from 'express';

import { RuleError } from '../common/rule-error';
import type { WebhookConfig } from '../config';
import { updateEndpoint } from '../webhooks/edit';
import { endpointInput } from '../webhooks/endpoint-input';
import { rotateSecret } from '../webhooks/rotate-secret';
import { createEndpoint, deleteEndpoint, listEndpoints } from '../webhooks/service';
import { setEndpointStatus } from '../webhooks/set-status';
import { queueTestEvent } from '../webhooks/test-event';
import { isWebhookSecret, type OneTimeKeyBox } from './one-time-key';
import { backToForm, redirectAfterSave, refusedFor, refusedList, refusedText, saveSession, type RefusedForm } from './session';
import { asViewer, listField, requireSignIn, requireSuperAdmin, textField, viewerOf } from './viewer';
import type { Views } from './views';
import { deliveryPages } from './webhook-deliveries-pages';
import { EVENT_CHOICES, WEBHOOKS as BASE, endpointOfPage, endpointView, noticeThen } from './webhook-views';

interface EndpointForm {
	url?: string;
	events?: string[];
	description?: string;
	error?: string;
}

/** What a form field of the endpoint form (add or edit) broke, in the person's terms. */
const FIELD_ERRORS: Record<string, string> = {
	url: 'Enter the URL the LMS should post events to (http:// or https://, at most 2,048 characters, no control characters).',
	events: 'Choose at least one event type, or "Every event type".',
	description: 'The description must be at most 500 characters of plain text.',
};

/** The endpoint form as submitted, and what the API's own rule (webhooks/endpoint-input.ts) says of it, in the person's terms. */
function submittedEndpoint(req: Request): { form: Required<Omit<EndpointForm, 'error'>>; error?: string } {
	const form = { url: textField(req, 'url').trim(), events: listField(req, 'events'), description: textField(req, 'description').trim() };
	const { error } = endpointInput.validate(form, { abortEarly: true });
	if (!error) return { form };
	const name = String(error.details[0]?.path[0] ?? 'url');
	return { form, error: FIELD_ERRORS[name] ?? error.message };
}

/** A refused endpoint form, as the page shows it again after the redirect. */
function submittedAgain(back: RefusedForm): EndpointForm {
	return { url: refusedText(back, 'url'), events: refusedList(back, 'events'), description: refusedText(back, 'description'), error: back.error };
}

/**
 * Settings → Webhooks (SPEC §12, §19, §22): the organization's endpoints, adding one (its secret
 * shown once) and, on each endpoint's page, editing it (same id and secret), disable and enable, a
 * test event, secret rotation (shown once), delete behind a confirmation, and its deliveries
 * (settings/webhook-deliveries-pages.ts). Every change goes through the same webhooks/ functions as
 * the API, with the same rules and audit; this file only turns forms into calls and results into
 * pages. Enterprise only, like the API.
 */
export function webhookPages(views: Views, oneTimeKeys: OneTimeKeyBox, config: WebhookConfig): Router {
	const router = Router();
	router.use(BASE, requireSignIn, requireSuperAdmin(views), (req, res, next) => {
		if (viewerOf(res).hasApi) return next();
		return views.render(req, res, 'not-found.njk', {}, 404);
	});
	const notFound = (req: Request, res: Response) => views.render(req, res, 'not-found.njk', {}, 404);

	async function renderList(req: Request, res: Response): Promise<void> {
		const back = refusedFor(req, BASE);
		const form: EndpointForm = back ? submittedAgain(back) : {};
		const endpoints = await listEndpoints(viewerOf(res).organization.id);
		await views.render(
			req,
			res,
			'webhooks.njk',
			{
				eventChoices: EVENT_CHOICES,
				form: { url: form.url ?? '', events: form.events ?? [], description: form.description ?? '', error: form.error },
				endpoints: endpoints.map(endpointView),
			},
		);
	}

	router.get(BASE, async (req, res) => {
		await renderList(req, res);
	});

	router.post(BASE, async (req, res) => {
		const { form, error } = submittedEndpoint(req);
		if (error) return backToForm(req, res, BASE, error, form);
		try {
			const { endpoint, secret } = await createEndpoint({
				...form,
				description: form.description || null,
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
			await backToForm(req, res, BASE, err.message, form);
		}
	});

	/** The one page that shows a signing secret, once (the keys page's mechanism: settings/one-time-key.ts). */
	router.get(`${BASE}/secret`, async (req, res) => {
		const shown = await oneTimeKeys.take(req);
		if (!shown || !isWebhookSecret(shown)) return redirectAfterSave(req, res, BASE);
		await saveSession(req);
		await views.render(req, res, 'webhook-secret.njk', { shown });
	});

	/** The edit form, as stored or as submitted (after a refusal, with what was typed). */
	async function renderEdit(req: Request, res: Response, endpoint: ReturnType<typeof endpointView>) {
		const back = refusedFor(req, `${BASE}/${endpoint.id}/edit`);
		const form = back ? submittedAgain(back) : undefined;
		await views.render(
			req,
			res,
			'edit-webhook.njk',
			{
				endpoint,
				eventChoices: EVENT_CHOICES,
				form: form ?? { url: endpoint.url, events: endpoint.events, description: endpoint.description ?? '' },
			},
		);
	}

	router.get(`${BASE}/:endpointId/edit`, async (req, res) => {
		const endpoint = await endpointOfPage(res, req.params.endpointId);
		if (!endpoint) return notFound(req, res);
		await renderEdit(req, res, endpointView(endpoint));
	});

	/** An edit keeps the id, the secret and the delivery log (SPEC §22); a new URL passes the URL policy again. */
	router.post(`${BASE}/:endpointId/edit`, async (req, res) => {
		const endpoint = await endpointOfPage(res, req.params.endpointId);
		if (!endpoint) return notFound(req, res);
		const { form, error } = submittedEndpoint(req);
		if (error) return backToForm(req, res, `${BASE}/${endpoint.id}/edit`, error, form);
		try {
			const edited = await updateEndpoint({ id: endpoint.id, change: form, config, ...asViewer(req, res) });
			if (!edited) return notFound(req, res);
			await noticeThen(req, res, `${BASE}/${edited.id}`, 'success', `Saved ${edited.url}. Its ID and signing secret are unchanged.`);
		} catch (err) {
			// A refused URL: said with the form, which keeps what was typed; nothing changed.
			if (!(err instanceof RuleError)) throw err;
			await backToForm(req, res, `${BASE}/${endpoint.id}/edit`, err.message, form);
		}
	});

	/** A rule the domain refused (disabled endpoint…): said on the endpoint's page, as it is. */
	async function refused(req: Request, res: Response, err: unknown): Promise<void> {
		if (!(err instanceof RuleError)) throw err;
		await noticeThen(req, res, `${BASE}/${String(req.params.endpointId)}`, 'error', err.message);
	}

	for (const status of ['enabled', 'disabled'] as const) {
		router.post(`${BASE}/:endpointId/${status === 'enabled' ? 'enable' : 'disable'}`, async (req, res) => {
			try {
				const endpoint = await setEndpointStatus({ id: req.params.endpointId, status, ...asViewer(req, res) });
				if (!endpoint) return notFound(req, res);
				const text =
					status === 'enabled'
						? `Enabled ${endpoint.url}: new events are sent to it again.`
						: `Disabled ${endpoint.url}: nothing is sent to it until it is enabled again.`;
				await noticeThen(req, res, `${BASE}/${endpoint.id}`, 'success', text);
			} catch (err) {
				await refused(req, res, err);
			}
		});
	}

	router.post(`${BASE}/:endpointId/test`, async (req, res) => {
		try {
			const delivery = await queueTestEvent(viewerOf(res).organization.id, req.params.endpointId);
			if (!delivery) return notFound(req, res);
			await noticeThen(req, res, `${BASE}/${delivery.endpointId}`, 'success', `A webhook.test event (${delivery.eventId}) is on its way: reload this page to see its delivery.`);
		} catch (err) {
			await refused(req, res, err);
		}
	});

	router.post(`${BASE}/:endpointId/rotate`, async (req, res) => {
		const rotated = await rotateSecret({ id: req.params.endpointId, config, ...asViewer(req, res) });
		if (!rotated) return notFound(req, res);
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

	router.get(`${BASE}/:endpointId/delete`, async (req, res) => {
		const endpoint = await endpointOfPage(res, req.params.endpointId);
		if (!endpoint) return notFound(req, res);
		await views.render(req, res, 'confirm-webhook.njk', { endpoint: endpointView(endpoint) });
	});

	router.post(`${BASE}/:endpointId/delete`, async (req, res) => {
		const endpoint = await deleteEndpoint({ id: req.params.endpointId, ...asViewer(req, res) });
		if (!endpoint) return notFound(req, res);
		await noticeThen(req, res, BASE, 'success', `Deleted the webhook endpoint ${endpoint.url}: nothing more is sent to it.`);
	});

	// Each endpoint's page and its deliveries: after the fixed paths above (`secret`).
	router.use(deliveryPages(views));
	return router;
}
