import { countRows, readPage, type PageRequest } from '../../db/table';
import { Where } from '../../db/where';
import { WEBHOOK_EVENT_TYPES } from '../event-types';
import { TEST_EVENT_TYPE } from '../test-event';
import { DELIVERIES, type DeliveryRow } from './queries';

/** The types a delivery can have: the feed's, and the test event (the `event_type` filter's values). */
export const DELIVERY_EVENT_TYPES: readonly string[] = [...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE];

/** An endpoint's delivery log filtered (SPEC §22): each filter absent when not given. */
export interface DeliveryFilters {
	status?: string;
	eventType?: string;
	/** Strictly after / before these instants, by creation. */
	createdAfter?: Date;
	createdBefore?: Date;
}

/**
 * The one condition of an endpoint's filtered delivery log, for the API's list
 * (deliveries/list.ts) and Settings → Webhooks alike; served by the endpoint's index
 * (endpoint_id, created_at, id). The organization is the caller's to add.
 */
export function whereDeliveries(where: Where, endpointId: string, filters: DeliveryFilters): Where {
	where.equals('endpoint_id', endpointId);
	where.equals('status', filters.status);
	where.equals('event_type', filters.eventType);
	if (filters.createdAfter !== undefined) where.and((p) => `created_at > ${p}`, filters.createdAfter);
	if (filters.createdBefore !== undefined) where.and((p) => `created_at < ${p}`, filters.createdBefore);
	return where;
}

/** One page of an endpoint's delivery log, newest first, and how many match in all (Settings → Webhooks). */
export async function readDeliveries(
	organizationId: string,
	endpointId: string,
	filters: DeliveryFilters,
	page: PageRequest,
): Promise<{ rows: DeliveryRow[]; total: number }> {
	const where = whereDeliveries(new Where().equals('organization_id', organizationId), endpointId, filters);
	const [rows, total] = await Promise.all([readPage(DELIVERIES, where, page), countRows(DELIVERIES, where)]);
	return { rows, total };
}
