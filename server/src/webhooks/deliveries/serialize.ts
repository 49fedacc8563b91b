import type { Scope } from '../../api-keys/model';
import { iso } from '../../common/time';
import { isEventType, typesVisibleTo } from '../../events/types';
import type { SentRequest } from '../exchange';
import type { DeliveryRow } from './queries';

/**
 * A delivery as the API shows it. `next_attempt_at` only while one is owed (pending); a
 * finished delivery has none. `last_status_code` is the receiver's HTTP status of the last
 * attempt (null when it never answered: refused, timed out), `last_error` why it failed.
 * `last_request` (headers, body) is what the last attempt sent and `last_response` (status,
 * body) what came back, each body cut to a few KB with a marker (webhooks/exchange.ts); null
 * when nothing was sent, or no answer came. The request's body is the event: shown only to a
 * key that may read its type through the feed (SPEC §22), else null (`scopes`: the caller's).
 */
export function serializeDelivery(row: DeliveryRow, scopes: readonly Scope[]): Record<string, unknown> {
	const request = row.lastRequest ? (JSON.parse(row.lastRequest) as SentRequest) : null;
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
		last_request: request && { headers: request.headers, body: mayReadBody(row.eventType, scopes) ? request.body : null },
		last_response: row.lastStatusCode === null ? null : { status: Number(row.lastStatusCode), body: row.lastResponseBody },
	};
}

/** A test event's body names only its endpoint; any other is the event a feed reader with the scope would read. */
function mayReadBody(type: string, scopes: readonly Scope[]): boolean {
	return !isEventType(type) || typesVisibleTo(scopes).includes(type);
}
