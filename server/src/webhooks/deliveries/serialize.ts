import { iso } from '../../common/time';
import type { SentRequest } from '../exchange';
import type { DeliveryRow } from './queries';

/**
 * A delivery as the API shows it. `next_attempt_at` only while one is owed (pending); a
 * finished delivery has none. `last_status_code` is the receiver's HTTP status of the last
 * attempt (null when it never answered: refused, timed out), `last_error` why it failed.
 * `last_request` (headers, body) is what the last attempt sent and `last_response` (status,
 * body) what came back, each body cut to a few KB with a marker (webhooks/exchange.ts); null
 * when nothing was sent, or no answer came.
 */
export function serializeDelivery(row: DeliveryRow): Record<string, unknown> {
	return {
		id: row.id,
		endpoint_id: row.endpointId,
		event_id: row.eventId,
		event_type: row.eventType,
		status: row.status,
		attempts: Number(row.attempts),
		last_status_code: row.lastStatusCode === null ? null : Number(row.lastStatusCode),
		last_error: row.lastError,
		last_attempt_at: iso(row.lastAttemptAt),
		next_attempt_at: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
		delivered_at: iso(row.deliveredAt),
		created_at: iso(row.createdAt),
		last_request: row.lastRequest ? (JSON.parse(row.lastRequest) as SentRequest) : null,
		last_response: row.lastStatusCode === null ? null : { status: Number(row.lastStatusCode), body: row.lastResponseBody },
	};
}
