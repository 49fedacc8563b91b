import { Router, type Request, type Response } from 'express';

import { EXPIRY_REMINDER_DAYS, expiresSoon, sweepKeyExpiry } from '../api-keys/expiry-sweep';
import { ApiKey, SCOPES } from '../api-keys/model';
import { listAuditEvents } from '../api-keys/audit';
import { KeyRuleError } from '../api-keys/errors';
import { createKey, listKeys, revokeKey, rotateKey, type IssuedKey, type KeyChange } from '../api-keys/lifecycle';
import { User } from '../users/model';
import { WebhookEndpoint } from '../webhooks/model';
import { endpointsOfKey } from '../webhooks/owners';
import { isWebhookSecret, type OneTimeKeyBox } from './one-time-key';
import { backToForm, redirectAfterSave, refusedFor, refusedList, refusedText, saveSession } from './session';
import { asViewer, listField, requireSignIn, requireSuperAdmin, textField, viewerOf } from './viewer';
import type { Views } from './views';

const BASE = '/settings/api-keys';

/**
 * The key an identity provider (Okta, Entra ID) or an HR system provisions users and groups
 * with (SPEC §21, docs/provisioning.md): roster data, read and write, nothing else.
 */
const PROVISIONING_PRESET = { label: 'Identity provider (SCIM)', scopes: ['read:users', 'write:users'] };
const AUDIT_ROWS = 50;

const ACTION_WORDS: Record<string, string> = {
	'key.created': 'Created',
	'key.rotated': 'Rotated',
	'key.revoked': 'Revoked',
	'key.expiring': `Expires within ${EXPIRY_REMINDER_DAYS} days`,
	'key.expired': 'Expired',
	'webhook.created': 'Webhook endpoint created',
	'webhook.rotated': 'Webhook signing secret rotated',
	'webhook.updated': 'Webhook endpoint edited',
	'webhook.deleted': 'Webhook endpoint deleted',
	'webhook.disabled': 'Webhook endpoint disabled',
	'webhook.enabled': 'Webhook endpoint enabled',
	'password.changed': 'Password changed on Settings',
	'password.set': 'Password set by the operator',
	'password.link': 'Password reset link made',
	'password.reset': 'Password reset with a link',
};

/**
 * Settings → API Keys. Every change goes through the key service, which holds the rules
 * (Enterprise only, label, scopes, audit); this file only turns forms into calls and
 * results into pages.
 */
export function apiKeyPages(views: Views, oneTimeKeys: OneTimeKeyBox): Router {
	const router = Router();
	router.use(BASE, requireSignIn, requireSuperAdmin(views));

	/** The keys page, with the "New API key" form as submitted (after an error) or empty. */
	async function renderKeysPage(
		req: Request,
		res: Response,
		start: { label?: string; scopes?: string[]; expires?: string } = {},
		status = 200,
	): Promise<void> {
		// After a refusal (POST → 303 → here), the form as it was sent, and why it was refused.
		const back = refusedFor(req, BASE);
		const form = back
			? { label: refusedText(back, 'label'), scopes: refusedList(back, 'scopes'), expires: refusedText(back, 'expires') }
			: start;
		const viewer = viewerOf(res);
		const organizationId = viewer.organization.id;
		// The audit log below is current when a person reads it, whenever the background sweep last ran.
		await sweepKeyExpiry();
		const now = new Date();
		const [keys, events] = await Promise.all([listKeys(organizationId), listAuditEvents(organizationId, AUDIT_ROWS)]);
		const people = new Map<string, string>();
		const userIds = [...new Set([...keys.map((k) => k.createdBy), ...events.flatMap((e) => [e.actor, e.userId ?? 'cli'])])].filter((id) => id !== 'cli' && id !== 'system');
		if (userIds.length > 0) {
			const users = await User.findAll({ where: { id: userIds, organizationId }, attributes: ['id', 'name'] });
			for (const u of users) people.set(u.id, u.name);
		}
		const byId = new Map(keys.map((k) => [k.id, k]));
		const endpointIds = [...new Set(events.map((e) => e.webhookEndpointId).filter((id): id is string => id !== null))];
		const endpointUrls = new Map(
			(endpointIds.length > 0 ? await WebhookEndpoint.findAll({ where: { id: endpointIds, organizationId }, attributes: ['id', 'url'] }) : []).map(
				(e) => [e.id, e.url],
			),
		);
		// Through the API the actor is a key: named by its label, as in the keys list.
		const keyActor = (id: string) => (byId.has(id) ? `API key ${byId.get(id)!.label}` : undefined);
		const personName = (id: string) => (id === 'cli' ? 'Command line' : (people.get(id) ?? 'A former user'));
		const machineActor = (id: string) => (id === 'cli' ? 'Command line' : id === 'system' ? 'The server' : undefined);

		await views.render(
			req,
			res,
			'api-keys.njk',
			{
				scopes: SCOPES,
				keys: keys.map((k) => ({
					id: k.id,
					label: k.label,
					scopes: k.scopeList,
					masked: k.masked,
					status: k.status,
					createdAt: k.createdAt,
					createdBy: personName(k.createdBy),
					lastUsedAt: k.lastUsedAt,
					revokedAt: k.revokedAt,
					replacedBy: k.replacedBy ? byId.get(k.replacedBy)?.masked : undefined,
					expiresAt: k.expiresAt,
					expired: k.status === 'active' && k.isExpired(now),
					// A rotated key kept working for a while (SPEC §22): until when; it can still be revoked.
					graceUntil: k.inGrace(now) ? k.graceUntil : null,
				})),
				// Active keys near or past their date: the page says so above everything else.
				reminders: keys
					.filter((k) => expiresSoon(k, now))
					.map((k) => ({ id: k.id, label: k.label, masked: k.masked, expiresAt: k.expiresAt, expired: k.isExpired(now) })),
				reminderDays: EXPIRY_REMINDER_DAYS,
				// Tomorrow, UTC: the earliest date the form accepts.
				minExpiryDate: new Date(now.getTime() + 86_400_000).toISOString().slice(0, 10),
				events: events.map((e) => {
					const key: ApiKey | undefined = byId.get(e.apiKeyId);
					const byKey = keyActor(e.actor);
					return {
						at: e.createdAt,
						who: machineActor(e.actor) ?? byKey ?? people.get(e.actor) ?? e.actorName,
						whoDetail: machineActor(e.actor) || byKey ? '' : e.actorName,
						// A password entry names whose password it is.
						action: `${ACTION_WORDS[e.action] ?? e.action}${e.userId ? ` for ${personName(e.userId)}` : ''}`,
						endpoint: e.webhookEndpointId ? { id: e.webhookEndpointId, url: endpointUrls.get(e.webhookEndpointId) ?? '' } : undefined,
						keyLabel: key?.label ?? e.apiKeyId,
						keyMasked: key?.masked ?? '',
						ip: e.ip ?? '',
					};
				}),
				form: { label: form.label ?? '', scopes: form.scopes ?? [], expires: form.expires ?? '', error: back?.error },
			},
			status,
		);
	}

	/** A rule the service refused: said on the keys page in the person's terms, after a redirect (Back never resends). */
	async function refused(req: Request, res: Response, err: unknown, form: { label: string; scopes: string[]; expires: string } | Record<string, never> = {}) {
		if (!(err instanceof KeyRuleError)) throw err;
		if (err.code === 'key_not_found') return views.render(req, res, 'not-found.njk', {}, 404);
		await backToForm(req, res, BASE, err.message, form);
	}

	/** Hands the new secret to the one page that shows it (POST → 303 → GET, so never twice). */
	async function showOnce(req: Request, res: Response, { apiKey, secret, movedEndpoints, previousUntil }: IssuedKey, action: 'created' | 'rotated') {
		await oneTimeKeys.put(req, {
			keyId: apiKey.id,
			label: apiKey.label,
			scopes: apiKey.scopeList,
			masked: apiKey.masked,
			action,
			secret,
			movedEndpoints: movedEndpoints ?? [],
			...(previousUntil ? { previousUntil: previousUntil.toISOString() } : {}),
		});
		await redirectAfterSave(req, res, `${BASE}/new-key`);
	}

	/** One key of the viewer's organization; another organization's key is as good as absent. */
	function findKey(res: Response, keyId: string): Promise<ApiKey | null> {
		return ApiKey.findOne({ where: { id: keyId, organizationId: viewerOf(res).organization.id } });
	}

	router.get(BASE, async (req, res) => {
		// A link may ask for the form filled in for a purpose (Settings → Connect an identity provider).
		await renderKeysPage(req, res, req.query.preset === 'provisioning' ? PROVISIONING_PRESET : {});
	});

	router.post(BASE, async (req, res) => {
		const label = textField(req, 'label');
		const scopes = listField(req, 'scopes');
		const expires = textField(req, 'expires');
		try {
			const { apiKey, secret } = await createKey({ label, scopes, expires, ...asViewer(req, res) });
			await showOnce(req, res, { apiKey, secret }, 'created');
		} catch (err) {
			await refused(req, res, err, { label, scopes, expires });
		}
	});

	/**
	 * The one page that shows a full key, once: the secret is taken out of the session as it is
	 * rendered, and the page may not be stored by any cache, so reloading it or coming back to
	 * it leads to the keys list.
	 */
	router.get(`${BASE}/new-key`, async (req, res) => {
		const shown = await oneTimeKeys.take(req);
		// A webhook secret belongs to its own page (settings/webhooks-pages.ts), never shown here.
		if (!shown || isWebhookSecret(shown)) return redirectAfterSave(req, res, BASE);
		// Forgotten by the session before the page leaves, not after.
		await saveSession(req);
		await views.render(req, res, 'new-key.njk', { key: shown });
	});

	router.get(`${BASE}/:keyId/:action`, async (req, res) => {
		const action = req.params.action;
		if (action !== 'rotate' && action !== 'revoke') return views.render(req, res, 'not-found.njk', {}, 404);
		const key = await findKey(res, req.params.keyId);
		if (!key) return views.render(req, res, 'not-found.njk', {}, 404);
		if (key.status !== 'active' && !(action === 'revoke' && key.inGrace())) {
			req.session.notice = { kind: 'error', text: `The key ${key.label} is already ${key.status}.` };
			return redirectAfterSave(req, res, BASE);
		}
		if (action === 'rotate' && key.isExpired()) {
			req.session.notice = { kind: 'error', text: `The key ${key.label} has expired: create a new key instead of rotating it, then revoke this one.` };
			return redirectAfterSave(req, res, BASE);
		}
		const viewer = viewerOf(res);
		if (action === 'rotate' && !viewer.hasApi) {
			return renderKeysPage(req, res, {}, 403);
		}
		await views.render(req, res, 'confirm.njk', {
			action,
			key: { id: key.id, label: key.label, masked: key.masked, scopes: key.scopeList, expiresAt: key.expiresAt },
			// Rotating hands them to the new key, revoking disables them (SPEC §19): say which.
			endpoints: await endpointsOfKey(key.id),
		});
	});

	/** Rotate and revoke: the key service's call, then what the page says; a broken rule is said on the keys page. */
	const keyAction = <T>(action: 'rotate' | 'revoke', call: (input: KeyChange & { expireOldAfter?: unknown }) => Promise<T>, then: (req: Request, res: Response, result: T) => Promise<void>) =>
		router.post(`${BASE}/:keyId/${action}`, async (req, res) => {
			try {
				// Rotation only: how long the old key keeps working (`expire_old_after`, hours, SPEC §22).
				const grace = action === 'rotate' ? { expireOldAfter: (req.body as Record<string, unknown>)?.expire_old_after } : {};
				await then(req, res, await call({ keyId: req.params.keyId, ...asViewer(req, res), ...grace }));
			} catch (err) {
				await refused(req, res, err);
			}
		});
	keyAction('rotate', rotateKey, (req, res, issued) => showOnce(req, res, issued, 'rotated'));
	keyAction('revoke', revokeKey, async (req, res, apiKey) => {
		const disabled = apiKey.disabledEndpoints ?? [];
		const endpoints = disabled.length > 0 ? ` Its webhook endpoints are disabled: ${disabled.map((e) => e.url).join(', ')}.` : '';
		req.session.notice = { kind: 'success', text: `Revoked ${apiKey.label} (${apiKey.masked}). It stopped working immediately.${endpoints}` };
		await redirectAfterSave(req, res, BASE);
	});

	return router;
}
