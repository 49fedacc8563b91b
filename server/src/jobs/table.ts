import type { Logger } from 'pino';

import type { Config } from '../config';
import type { Database } from '../db';
import { sweepKeyExpiry } from '../api-keys/expiry-sweep';
import { APPLY_EVERY_MS, applyAssignments, onNewAssignment } from '../assignments/apply';
import { sweepOverdue } from '../enrollments/overdue-sweep';
import { pruneEvents } from '../events/retention';
import { pruneIdempotencyKeys } from '../idempotency/retention';
import { pruneDeliveries } from '../webhooks/retention';
import { DeliveryWorker } from '../webhooks/worker';
import type { Job } from './job';

/** Retention is in days; an hour late is within "at least". */
const HOURLY = 3_600_000;

/**
 * Every periodic pass of the server, the one place they are listed. Every instance runs each of
 * them: the work is claimed in the database (leases, SKIP LOCKED, conditional updates), so
 * several instances at once never do a thing twice, only repeat a cheap query.
 */
export function jobTable({ config, db, logger }: { config: Config; db: Database; logger: Logger }): Job[] {
	const deliveries = new DeliveryWorker(db, config.webhooks, logger);
	const days = config.eventRetentionDays;
	return [
		{ name: 'webhook_deliveries', everyMs: config.webhooks.pollMs, pass: (stopping) => deliveries.pass(stopping), wakeOn: (wake) => deliveries.wakeOn(wake), settle: () => deliveries.settle() },
		{ name: 'overdue_sweep', everyMs: config.overdueSweepMs, pass: () => sweepOverdue() },
		// Each batch holds its assignment's row and advances its cursor in the batch's transaction: a member is enrolled once.
		{ name: 'assignments', everyMs: APPLY_EVERY_MS, pass: (stopping) => applyAssignments(stopping), wakeOn: onNewAssignment },
		{ name: 'key_expiry_sweep', everyMs: config.overdueSweepMs, pass: () => sweepKeyExpiry() },
		{ name: 'event_retention', everyMs: HOURLY, pass: () => pruneEvents(days) },
		{ name: 'delivery_retention', everyMs: HOURLY, pass: () => pruneDeliveries(days) },
		{ name: 'idempotency_retention', everyMs: HOURLY, pass: () => pruneIdempotencyKeys() },
	];
}
