import { isIdOf } from '../common/id-shapes';
import { problems } from '../common/problem';
import { ok, type WriteHandler } from '../http/answer';
import { asCaller } from '../http/auth';
import type { AppDeps } from '../http/deps';
import { parseBody } from '../http/validate';
import { checkSubscribable } from './create';
import { endpointChange } from './endpoint-input';
import { serializeEndpoint } from './serialize';
import { updateEndpoint } from './edit';

/**
 * PATCH /api/v1/webhook_endpoints/{id} `{ url?, events?, description? }`: the endpoint edited,
 * same id and secret (SPEC §22). The key's scope rule and the URL policy apply as at creation
 * (403 insufficient_scope, 422 invalid_webhook_url), and nothing changes when either refuses.
 */
export function patchWebhookEndpoint({ config }: Pick<AppDeps, 'config'>): WriteHandler {
	return async ({ body: raw, params, caller, origin }) => {
		const change = parseBody(endpointChange, raw);
		if (change.events) checkSubscribable(change.events, caller.apiKey.scopeList);
		const endpoint = isIdOf('webhookEndpoint', params.id)
			? await updateEndpoint({ id: params.id, change, origin, config: config.webhooks, ...asCaller(caller), ownerKeyId: caller.apiKey.id })
			: undefined;
		if (!endpoint) throw problems.notFound('webhook endpoint');
		return ok(serializeEndpoint(endpoint));
	};
}
