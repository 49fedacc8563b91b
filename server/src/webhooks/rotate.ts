import { isIdOf } from '../common/id-shapes';
import { problems } from '../common/problem';
import { ok, type WriteHandler } from '../http/answer';
import { asCaller } from '../http/auth';
import type { AppDeps } from '../http/deps';
import { parseBody } from '../http/validate';
import { emptyBody } from './deliveries/empty-body';
import { rotateSecret } from './rotate-secret';
import { serializeEndpoint } from './serialize';

/**
 * POST /api/v1/webhook_endpoints/{id}/rotate_secret: the endpoint with its new `secret` (this
 * answer only; a replay under the same Idempotency-Key answers without it) and
 * `previous_secret_expires_at`, until when the old secret still signs beside it.
 */
export function rotateWebhookSecret({ config }: Pick<AppDeps, 'config'>): WriteHandler {
	return async ({ body, params, caller, origin }) => {
		parseBody(emptyBody, body ?? {});
		const rotated = isIdOf('webhookEndpoint', params.id)
			? await rotateSecret({ id: params.id, origin, config: config.webhooks, ...asCaller(caller), ownerKeyId: caller.apiKey.id })
			: undefined;
		if (!rotated) throw problems.notFound('webhook endpoint');
		const record = { ...serializeEndpoint(rotated.endpoint), previous_secret_expires_at: rotated.previousUntil.toISOString() };
		return { ...ok({ ...record, secret: rotated.secret }), keptBody: record };
	};
}
