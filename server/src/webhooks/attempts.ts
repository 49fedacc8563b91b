import type { Transaction } from 'sequelize';

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

/** Adds a send to its delivery's attempts, inside the transaction that records its outcome. */
export async function recordAttempt(attempt: AttemptRecord, transaction: Transaction): Promise<void> {
	await WebhookDeliveryAttempt.create(attempt, { transaction });
}
