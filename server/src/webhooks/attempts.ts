import type { Transaction } from 'sequelize';

import type { Database } from '../db';
import { insertAttempts } from './queries';
import { WebhookDeliveryAttempt } from './model';

/** One send of a delivery as the worker records it (webhooks/model.ts WebhookDeliveryAttempt). */
export interface AttemptRecord {
	deliveryId: string;
	attempt: number;
	startedAt: Date;
	durationMs: number;
	statusCode: number | null;
	error: string | null;
	requestHeaders: string | null;
	/** Null for a destination that is not public (SPEC §22), or without an answer. */
	responseBody: string | null;
	responseSize: number | null;
}

/**
 * Adds sends to their deliveries' attempts, in one INSERT from one JSON parameter (as deliveries
 * are inserted), inside the transaction that records their outcomes: no model instance per row
 * (bulkCreate built and validated one for each, a good part of a delivery's CPU, issue 40).
 */
export async function recordAttempts(db: Database, attempts: readonly AttemptRecord[], transaction: Transaction): Promise<void> {
	if (attempts.length === 0) return;
	const list = JSON.stringify(
		attempts.map((a) => [a.deliveryId, a.attempt, a.startedAt.toISOString(), a.durationMs, a.statusCode, a.error, a.requestHeaders, a.responseBody, a.responseSize]),
	);
	await db.run(insertAttempts(db), [list], transaction);
}

/** A delivery's attempts shown at most: its schedule is 7, so only a delivery resent many times has more (the newest are kept). */
const MAX_ATTEMPTS_SHOWN = 100;

/** The newest attempts of a delivery, oldest first. */
export async function attemptsOf(deliveryId: string): Promise<WebhookDeliveryAttempt[]> {
	const rows = await WebhookDeliveryAttempt.findAll({ where: { deliveryId }, order: [['id', 'DESC']], limit: MAX_ATTEMPTS_SHOWN });
	return rows.reverse();
}
