import { problems } from '../common/problem';
import { visibleTypes } from '../events/list';
import type { Scope } from '../api-keys/model';
import { scopeOf, type EventType } from '../events/types';
import { created, type WriteHandler } from '../http/answer';
import { asCaller } from '../http/auth';
import type { AppDeps } from '../http/deps';
import { parseBody } from '../http/validate';
import { ALL_EVENTS } from './event-types';
import { endpointInput as bodySchema } from './endpoint-input';
import { serializeEndpoint } from './serialize';
import { createEndpoint } from './service';

/**
 * POST /api/v1/webhook_endpoints: the one answer that carries the secret. A replay under the
 * same Idempotency-Key answers the endpoint without it: a secret is shown once.
 *
 * The key may subscribe only to what its scopes let it read through the feed (SPEC §19, the
 * feed's one rule): a named type it cannot read is 403 naming the scope, and `*` ("every type
 * this key can see") needs it to see at least one, as the feed does.
 */
/** A key subscribes only to types it may read: else 403 naming the scope (creation and edits alike). */
export function checkSubscribable(events: readonly string[], scopes: readonly Scope[]): void {
	const visible = visibleTypes(scopes);
	const hidden = events.find((t) => t !== ALL_EVENTS && !visible.includes(t as EventType));
	if (hidden) throw problems.insufficientScope(scopeOf(hidden as EventType));
}

export function createWebhookEndpoint({ config }: Pick<AppDeps, 'config'>): WriteHandler {
	return async ({ body: raw, caller, origin }) => {
		const body = parseBody(bodySchema, raw);
		checkSubscribable(body.events, caller.apiKey.scopeList);
		// A refused URL or a full organization is a RuleError: http/rule-problems.ts answers it.
		const { endpoint, secret } = await createEndpoint({
			url: body.url,
			events: body.events,
			description: body.description || null,
			apiKeyId: caller.apiKey.id,
			origin,
			config: config.webhooks,
			...asCaller(caller),
		});
		const record = serializeEndpoint(endpoint);
		return created(`/api/v1/webhook_endpoints/${endpoint.id}`, { ...record, secret }, record);
	};
}
