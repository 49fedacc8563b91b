import type { Transaction } from 'sequelize';

import type { Actor, Origin } from '../api-keys/audit';
import { ApiKey } from '../api-keys/model';
import { RuleError } from '../common/rule-error';
import type { WebhookConfig } from '../config';
import { database } from '../db';
import { scopeOf as typeScope, typesVisibleTo, type EventType } from '../events/types';
import { writeTransaction } from '../db/write-transaction';
import { ALL_EVENTS } from './event-types';
import type { EndpointInput } from './endpoint-input';
import type { WebhookEndpoint } from './model';
import { auditEndpoint, findEndpoint, scopeOf } from './service';
import { checkWebhookUrl, type UrlPolicy } from './url-policy';

/** insufficient_scope when the owner key's scopes cannot read one of `events` ("*" is what they can read). */
async function checkOwnerMayRead(apiKeyId: string, events: readonly string[], transaction: Transaction): Promise<void> {
	const owner = await ApiKey.findByPk(apiKeyId, { transaction, attributes: ['id', 'label', 'scopes'] });
	const readable = typesVisibleTo(owner?.scopeList ?? []);
	const hidden = events.find((t) => t !== ALL_EVENTS && !readable.includes(t as EventType));
	if (!hidden) return;
	const scope = typeScope(hidden as EventType);
	throw new RuleError(
		'insufficient_scope',
		`This endpoint belongs to the API key “${owner?.label ?? apiKeyId}”, which lacks the ${scope} scope, so it cannot be sent ${hidden} events. Choose event types that key can read, or add the endpoint again from this page.`,
		{ scope },
	);
}

/**
 * Edits an endpoint's url, events or description, keeping its id, its secret and its deliveries
 * (SPEC §22). A new URL passes the URL policy as at creation (422 invalid_webhook_url, checked
 * before the transaction: DNS may be slow; the worker checks it again before every send). New
 * events must be readable by the endpoint's owner key, whichever door edits it (the API's caller
 * is that key; a Super Admin on Settings is not, and must not widen what the key's endpoint is
 * sent): insufficient_scope otherwise, and nothing changes. Audited as webhook.updated.
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
		if (events && endpoint.apiKeyId) await checkOwnerMayRead(endpoint.apiKeyId, events, transaction);
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
