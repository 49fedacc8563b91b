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

/** Adds sends to their deliveries' attempts, in one INSERT, inside the transaction that records their outcomes. */
export async function recordAttempts(attempts: readonly AttemptRecord[], transaction: Transaction): Promise<void> {
	if (attempts.length > 0) await WebhookDeliveryAttempt.bulkCreate([...attempts], { transaction, returning: false });
}
