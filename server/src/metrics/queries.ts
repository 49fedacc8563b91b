import type { Database } from '../db';

/** The pending webhook deliveries and the earliest next attempt among them (ISO text), for both delivery gauges. */
export const PENDING_DELIVERIES = (db: Database) =>
	`SELECT COUNT(*) AS pending, ${db.isoText('MIN(next_attempt_at)')} AS oldest FROM webhook_deliveries WHERE status = 'pending'`;
