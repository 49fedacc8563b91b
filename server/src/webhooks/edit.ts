import type { Actor, Origin } from '../api-keys/audit';
import type { WebhookConfig } from '../config';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { ALL_EVENTS } from './event-types';
import type { EndpointInput } from './endpoint-input';
import type { WebhookEndpoint } from './model';
import { auditEndpoint, findEndpoint, scopeOf } from './service';
import { checkWebhookUrl, type UrlPolicy } from './url-policy';

/**
 * Edits an endpoint's url, events or description, keeping its id, its secret and its deliveries
 * (SPEC §22). A new URL passes the URL policy as at creation (422 invalid_webhook_url, checked
 * before the transaction: DNS may be slow; the worker checks it again before every send); the
 * events were checked against the key's scopes by the caller. Audited as webhook.updated.
 * Undefined when the door reaches no such endpoint.
 */
export async function updateEndpoint(input: {
	organizationId: string | undefined;
	/** Through the API: the calling key, which reaches only its own endpoints. */
	ownerKeyId?: string;
	id: string;
	change: Partial<EndpointInput>;
	actor: Actor;
	origin?: Origin;
	config: UrlPolicy & Pick<WebhookConfig, 'sealingSecrets'>;
}): Promise<WebhookEndpoint | undefined> {
	const { change } = input;
	const url = change.url === undefined ? undefined : (await checkWebhookUrl(change.url, input.config)).url.href;
	const events = change.events && (change.events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(change.events)]);
	return writeTransaction(database(), async (transaction) => {
		const endpoint = await findEndpoint(scopeOf(input), input.id, transaction);
		if (!endpoint) return undefined;
		await endpoint.update(
			{
				...(url === undefined ? {} : { url }),
				...(events === undefined ? {} : { events: events.join(' ') }),
				...(change.description === undefined ? {} : { description: change.description || null }),
			},
			{ transaction },
		);
		await auditEndpoint('webhook.updated', endpoint, input, transaction);
		return endpoint;
	});
}
