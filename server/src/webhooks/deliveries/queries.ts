import type { Read, Table } from '../../db/table';
import type { WebhookDelivery } from '../model';

/** A delivery as the API reads one. */
export type DeliveryRow = Read<
	Pick<
		WebhookDelivery,
		| 'id'
		| 'endpointId'
		| 'eventId'
		| 'eventType'
		| 'status'
		| 'attempts'
		| 'lastStatusCode'
		| 'lastError'
		| 'lastAttemptAt'
		| 'nextAttemptAt'
		| 'deliveredAt'
		| 'lastRequest'
		| 'lastResponseBody'
		| 'createdAt'
	>
>;

/** An endpoint's delivery log, newest first: what an operator looks at is what just happened. */
export const DELIVERIES: Table<DeliveryRow> = {
	name: 'webhook_deliveries',
	columns: {
		id: 'id',
		endpointId: 'endpoint_id',
		eventId: 'event_id',
		eventType: 'event_type',
		status: 'status',
		attempts: 'attempts',
		lastStatusCode: 'last_status_code',
		lastError: 'last_error',
		lastAttemptAt: 'last_attempt_at',
		nextAttemptAt: 'next_attempt_at',
		deliveredAt: 'delivered_at',
		lastRequest: 'last_request',
		lastResponseBody: 'last_response_body',
		createdAt: 'created_at',
	},
	dates: ['lastAttemptAt', 'nextAttemptAt', 'deliveredAt', 'createdAt'],
	newestFirst: true,
};
