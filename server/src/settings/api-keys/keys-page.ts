import type { Request, Response } from 'express';

import { EXPIRY_REMINDER_DAYS, expiresSoon, sweepKeyExpiry } from '../../api-keys/expiry-sweep';
import { ApiKey, SCOPES } from '../../api-keys/model';
import { listAuditEvents } from '../../api-keys/audit';
import { listKeys } from '../../api-keys/lifecycle';
import { User } from '../../users/model';
import { WebhookEndpoint } from '../../webhooks/model';
import { refusedFor, refusedList, refusedText } from '../session';
import { viewerOf } from '../viewer';
import type { Views } from '../views';

/** Where Settings → API Keys lives. */
export const API_KEYS = '/settings/api-keys';

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

/** The keys page, with the "New API key" form as submitted (after an error) or empty. */
export async function renderKeysPage(
	req: Request,
	res: Response,
	views: Views,
	start: { label?: string; scopes?: string[]; expires?: string } = {},
	status = 200,
): Promise<void> {
	// After a refusal (POST → 303 → here), the form as it was sent, and why it was refused.
	const back = refusedFor(req, API_KEYS);
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
