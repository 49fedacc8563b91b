import { iso } from '../../common/time';
import type { WebhookDeliveryAttempt } from '../model';

/** One attempt as the API and Settings → Webhooks show it. */
export function serializeAttempt(a: WebhookDeliveryAttempt): Record<string, unknown> {
	return {
		attempt: a.attempt,
		started_at: iso(a.startedAt),
		duration_ms: a.durationMs,
		status_code: a.statusCode,
		error: a.error,
		request: a.requestHeaders === null ? null : { headers: JSON.parse(a.requestHeaders) as Record<string, string> },
		response: a.statusCode === null ? null : { status: a.statusCode, size: a.responseSize, body: a.responseBody },
	};
}
