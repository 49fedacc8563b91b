import { randomUUID } from 'node:crypto';

import type { Logger } from 'pino';
import { literal, QueryTypes, type Sequelize, type Transaction } from 'sequelize';

import type { WebhookConfig } from '../config';
import { writeTransaction } from '../db/write-transaction';
import { storedDate } from '../events/record';
import { eventJson, type EventRow } from '../events/feed';
import { deliverable } from './event-types';
import { WebhookDelivery, WebhookEndpoint } from './model';
import { ownerScopes } from './service';
import { DISABLE_AFTER_MS, nextAttemptAfter } from './schedule';
import { send, type SendResult } from './send';
import { signatureHeader } from './signature';
import { checkWebhookUrl, WebhookUrlError } from './url-policy';
import { onWake } from './wake';

/** Attempts one worker sends at once. */
const BATCH = 10;

interface Claimed {
	id: string;
	organization_id: string;
	endpoint_id: string;
	event_id: string;
	event_type: string;
	attempts: number;
}

/**
 * Claiming is one UPDATE that stamps a lease (an expiry and a token of this claim) on due rows
 * that nobody holds: PostgreSQL skips rows another instance is claiming at that moment
 * (FOR UPDATE SKIP LOCKED); SQLite has one writer, so two claims never overlap. The attempt is
 * counted at claim time, so an attempt cut short by a crash still counts.
 */
const CLAIM: Record<'postgres' | 'sqlite', string> = {
	postgres: `UPDATE webhook_deliveries SET lease_until = $1, lease_token = $2, attempts = attempts + 1, last_attempt_at = $3, updated_at = $3
		WHERE id IN (
			SELECT id FROM webhook_deliveries
			WHERE status = 'pending' AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until < $3)
			ORDER BY next_attempt_at LIMIT $4
			FOR UPDATE SKIP LOCKED)
		RETURNING id, organization_id, endpoint_id, event_id, event_type, attempts`,
	// Inside one IMMEDIATE transaction: nobody can write between the SELECT and the UPDATE.
	sqlite: `SELECT id FROM webhook_deliveries
		WHERE status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
		ORDER BY next_attempt_at LIMIT $2`,
};

const DUE = `SELECT 1 AS due FROM webhook_deliveries
	WHERE status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1) LIMIT 1`;

/**
 * Sends due deliveries, on every instance of the server. A delivery row is the whole state of
 * its retries, so a restart or a crash loses nothing: a lease left by a dead instance expires
 * and another claim takes the attempt again. The lease outlives the attempt (the send is cut
 * at `timeoutMs`, and no send starts once the lease is too near its end), so while one
 * instance still holds an attempt no other instance can take it.
 */
export class DeliveryWorker {
	private timer: NodeJS.Timeout | undefined;
	private running: Promise<void> | undefined;
	private again = false;
	private stopped = false;
	private readonly unsubscribe: () => void;
	private readonly leaseMs: number;

	constructor(
		private readonly sequelize: Sequelize,
		private readonly config: WebhookConfig,
		private readonly logger: Logger,
	) {
		this.leaseMs = 3 * config.timeoutMs + 5_000;
		this.unsubscribe = onWake(() => this.wake());
	}

	start(): void {
		this.wake();
	}

	/** Runs a pass now (or right after the current one). */
	wake(): void {
		if (this.stopped) return;
		if (this.running) {
			this.again = true;
			return;
		}
		clearTimeout(this.timer);
		this.running = this.drain()
			.catch((err: unknown) => this.logger.error({ err }, 'webhook delivery pass failed'))
			.finally(() => {
				this.running = undefined;
				if (this.stopped) return;
				if (this.again) {
					this.again = false;
					this.wake();
				} else {
					this.timer = setTimeout(() => this.wake(), this.config.pollMs);
				}
			});
	}

	/** Stops claiming; waits for the attempts in flight (each is bounded by the timeout). */
	async stop(): Promise<void> {
		this.stopped = true;
		this.unsubscribe();
		clearTimeout(this.timer);
		await this.running;
	}

	private async drain(): Promise<void> {
		while (!this.stopped) {
			const token = randomUUID();
			const now = new Date();
			const leaseUntil = new Date(now.getTime() + this.leaseMs);
			const dialect = this.sequelize.getDialect() === 'postgres' ? 'postgres' : 'sqlite';
			const bind = [storedDate(this.sequelize, leaseUntil), token, storedDate(this.sequelize, now), BATCH];
			// A read first: an idle poll then takes no write lock (SQLite) and locks no rows.
			const [due] = await this.sequelize.query(DUE, { bind: [bind[2]], type: QueryTypes.SELECT });
			if (!due) return;
			const claimed = await this.write(async (transaction) => {
				if (dialect === 'postgres') return this.sequelize.query<Claimed>(CLAIM.postgres, { bind, type: QueryTypes.SELECT, transaction });
				// Sequelize reads no rows back from an UPDATE on SQLite: select, update, read.
				const ids = (
					await this.sequelize.query<{ id: string }>(CLAIM.sqlite, { bind: [bind[2], BATCH], type: QueryTypes.SELECT, transaction })
				).map((r) => r.id);
				if (ids.length === 0) return [];
				await WebhookDelivery.update(
					{ leaseUntil, leaseToken: token, attempts: literal('attempts + 1'), lastAttemptAt: now },
					{ where: { id: ids }, transaction },
				);
				const rows = await WebhookDelivery.findAll({ where: { id: ids }, transaction });
				return rows.map((r) => ({
					id: r.id,
					organization_id: r.organizationId,
					endpoint_id: r.endpointId,
					event_id: r.eventId,
					event_type: r.eventType,
					attempts: r.attempts,
				}));
			});
			if (claimed.length === 0) return;
			await Promise.all(claimed.map((row) => this.attempt(row, token, leaseUntil)));
		}
	}

	private async attempt(row: Claimed, token: string, leaseUntil: Date): Promise<void> {
		const endpoint = await WebhookEndpoint.findByPk(row.endpoint_id);
		// Removed since the claim (with its organization): nothing is sent.
		if (!endpoint) return;
		if (endpoint.status !== 'enabled') {
			await this.finish(row, token, { status: 'failed', lastError: `endpoint ${endpoint.status}` });
			return;
		}
		// The key's scopes as they are now decide (SPEC §19): a key whose scopes shrank since the
		// event was written is not sent what it can no longer read.
		const owner = await ownerScopes(endpoint.apiKeyId);
		if (owner && (!owner.active || !deliverable(endpoint.eventList, owner.scopes, row.event_type))) {
			const lastError = owner.active ? `the endpoint's API key cannot read ${row.event_type}` : "the endpoint's API key is no longer active";
			await this.finish(row, token, { status: 'failed', lastError });
			return;
		}
		// The event committed with this delivery, so it is read directly, not through the feed's
		// hold-back (which may still hide it behind someone else's open transaction).
		const [event] = await this.sequelize.query<EventRow>('SELECT id, type, data, created_at, previous_attributes FROM events WHERE id = $1', {
			bind: [row.event_id],
			type: QueryTypes.SELECT,
		});
		if (!event) {
			await this.finish(row, token, { status: 'failed', lastError: 'event no longer kept' });
			return;
		}
		let result: SendResult;
		try {
			const target = await checkWebhookUrl(endpoint.url, this.config);
			// Too close to the lease's end to finish within it: leave the attempt to the next claim.
			if (Date.now() + this.config.timeoutMs + 1_000 > leaseUntil.getTime()) return;
			// The same bytes the feed serves for this event.
			const body = eventJson(event);
			result = await send(
				target,
				{
					'Content-Type': 'application/json',
					'User-Agent': 'LMS-Webhooks/1',
					'LMS-Event-Id': event.id,
					'LMS-Event-Type': event.type,
					'LMS-Signature': signatureHeader(endpoint.secret, body),
				},
				body,
				this.config.timeoutMs,
			);
		} catch (err) {
			if (!(err instanceof WebhookUrlError)) throw err;
			result = { error: err.message };
		}
		const now = new Date();
		if (result.status !== undefined && result.status >= 200 && result.status < 300) {
			await this.finish(row, token, { status: 'delivered', deliveredAt: now, lastStatusCode: result.status, lastError: null });
			if (endpoint.failingSince) {
				await this.write((transaction) => WebhookEndpoint.update({ failingSince: null }, { where: { id: endpoint.id }, transaction }));
			}
			return;
		}
		const next = nextAttemptAfter(row.attempts, this.config.retryBaseMs, now);
		const lastError = (result.error ?? `HTTP ${result.status}`).slice(0, 300);
		await this.finish(row, token, {
			...(next ? { nextAttemptAt: next } : { status: 'failed' }),
			lastStatusCode: result.status ?? null,
			lastError,
		});
		await this.noteFailure(endpoint, now);
		this.logger.warn(
			{ delivery: row.id, endpoint: endpoint.id, event: row.event_id, attempt: row.attempts, status: result.status, error: result.error },
			next ? 'webhook delivery failed; will retry' : 'webhook delivery failed for good',
		);
	}

	/** Writes take turns with the process's other write transactions (db/write-transaction.ts). */
	private write<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
		return writeTransaction(this.sequelize, work);
	}

	/** Records the outcome, if this claim still holds the lease. */
	private async finish(row: Claimed, token: string, changes: Partial<WebhookDelivery['_attributes']>): Promise<void> {
		await this.write((transaction) =>
			WebhookDelivery.update({ ...changes, leaseUntil: null, leaseToken: null }, { where: { id: row.id, leaseToken: token }, transaction }),
		);
	}

	/** Starts (or continues) the endpoint's run of failures; after three days of it, disables it. */
	private async noteFailure(endpoint: WebhookEndpoint, now: Date): Promise<void> {
		if (!endpoint.failingSince) {
			await this.write((transaction) =>
				WebhookEndpoint.update({ failingSince: now }, { where: { id: endpoint.id, failingSince: null }, transaction }),
			);
			return;
		}
		if (now.getTime() - endpoint.failingSince.getTime() >= DISABLE_AFTER_MS) {
			await this.write((transaction) => WebhookEndpoint.update({ status: 'disabled', disabledReason: 'three days of failed deliveries' }, { where: { id: endpoint.id, status: 'enabled' }, transaction }));
			this.logger.warn({ endpoint: endpoint.id }, 'webhook endpoint disabled after three days of failures');
		}
	}
}
