import type { Request, Response } from 'express';

import { SCOPES } from '../../api-keys/model';
import { isIdOf } from '../../common/id-shapes';
import { RuleError } from '../../common/rule-error';
import { EVENT_DESCRIPTIONS } from '../../events/types';
import { ALL_EVENTS, WEBHOOK_EVENT_TYPES } from '../../webhooks/event-types';
import type { WebhookEndpoint } from '../../webhooks/model';
import { findEndpoint } from '../../webhooks/service';
import { redirectAfterSave } from '../session';
import { viewerOf } from '../viewer';

/** Where Settings → Webhooks lives; an endpoint's page is `${WEBHOOKS}/{id}`. */
export const WEBHOOKS = '/settings/webhooks';

/** The event picker's choices (add and edit): each type with what it means (events/types.ts, the one wording). */
export const EVENT_CHOICES = [
	{ type: ALL_EVENTS, description: 'Every event type, including types the LMS adds later.' },
	...WEBHOOK_EVENT_TYPES.map((type) => ({ type, description: EVENT_DESCRIPTIONS[type] })),
];

/** The endpoint of the page's path in the viewer's organization (not deleted), or null: a bad id never reaches a query. */
export async function endpointOfPage(res: Response, id: unknown): Promise<WebhookEndpoint | null> {
	return isIdOf('webhookEndpoint', id) ? findEndpoint(viewerOf(res).organization.id, id) : null;
}

/** An endpoint as the pages show it. */
export function endpointView(e: WebhookEndpoint) {
	return {
		id: e.id,
		url: e.url,
		events: e.eventList,
		description: e.description,
		status: e.status,
		// Failing: its latest attempts failed and none succeeded since (cleared by the next success).
		failingSince: e.status === 'enabled' ? e.failingSince : null,
		disabledReason: e.disabledReason,
		createdAt: e.createdAt,
		// Made through the API by a key (n8n's trigger): what it is sent stays bounded by that key's scopes.
		byKey: e.apiKeyId !== null,
	};
}

/** A notice for the next page, then there (POST → 303 → GET). */
export async function noticeThen(req: Request, res: Response, location: string, kind: 'success' | 'error', text: string): Promise<void> {
	req.session.notice = { kind, text };
	await redirectAfterSave(req, res, location);
}

/** A rule the domain refused (disabled endpoint…): said on the endpoint's page, as it is. */
export async function refusedOnEndpoint(req: Request, res: Response, err: unknown): Promise<void> {
	if (!(err instanceof RuleError)) throw err;
	await noticeThen(req, res, `${WEBHOOKS}/${String(req.params.endpointId)}`, 'error', err.message);
}

/**
 * A Super Admin reads every event type (as on the API with every scope): the request bodies are
 * shown through the API's own rule (webhooks/deliveries/serialize.ts), answers' bodies as the
 * worker kept them (none for a destination that is not public, SPEC §22).
 */
export const EVERY_SCOPE = [...SCOPES];

/** What a delivery's state means to a person: pending before its first attempt, retrying after a failed one. */
export function resultOf(d: { status: string; attempts: unknown }): string {
	if (d.status === 'pending') return Number(d.attempts) > 0 ? 'Retrying' : 'Pending';
	return d.status === 'delivered' ? 'Delivered' : 'Failed';
}
