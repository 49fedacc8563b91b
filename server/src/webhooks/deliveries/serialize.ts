import type { DeliveryRow } from './queries';

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/**
 * A delivery as the API shows it. `next_attempt_at` only while one is owed (pending); a
 * finished delivery has none. `last_status_code` is the receiver's HTTP status of the last
 * attempt (null when it never answered: refused, timed out), `last_error` why it failed.
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
		created_at: row.createdAt.toISOString(),
	};
}
