import { randomUUID } from 'node:crypto';

import type { Logger } from 'pino';
import { literal, type Transaction } from 'sequelize';

import type { WebhookConfig } from '../config';
import type { Database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { eventJson, type EventRow } from '../events/feed';
import { webhookDeliveries } from '../metrics/registry';
import { deliverable } from './event-types';
import { WebhookDelivery, WebhookEndpoint } from './model';
import { dropConnections } from './connections';
import { candidates, claimPostgres, due, EVENT_BY_ID } from './queries';
import { ownerScopes } from './service';
import { recordAttempt, type AttemptRecord } from './attempts';
import { keptBody, type SentRequest } from './exchange';
import { DISABLE_AFTER_MS, nextAttemptAfter } from './schedule';
import { send, type SendResult } from './send';
import { signatureHeader } from './signature';
import { checkWebhookUrl, WebhookUrlError } from './url-policy';
import { signingSecrets } from './secrets';
import { TEST_EVENT_TYPE, testEventJson } from './test-event';
import { onWake } from './wake';

/**
 * Fairness (issue 27, finding 4): sends stay in flight continuously, up to POOL at once, each
 * taken as a slot frees (never a batch waiting for its slowest); an organization gets at most
 * PER_ORGANIZATION of them and an endpoint PER_ENDPOINT, or SLOW_ENDPOINT once it has timed out
 * (until it answers in time again); each claim takes the organizations round-robin (every
 * organization's oldest due row before anyone's second) and, within one, its endpoints likewise.
 * So receivers that hang hold a few slots of their own organization, and another organization's
 * event is sent as soon as it is due. The caps are per instance.
 */
const POOL = 64;
const PER_ORGANIZATION = 16;
const PER_ENDPOINT = 8;
const SLOW_ENDPOINT = 2;
const CAPS = { endpoint: PER_ENDPOINT, organization: PER_ORGANIZATION };

interface Claimed {
	id: string;
	organization_id: string;
	endpoint_id: string;
	event_id: string;
	event_type: string;
	attempts: number;
}

/** Counts of sends in flight by key. */
class InFlight {
	private readonly counts = new Map<string, number>();
	add(key: string, n: number): void {
		const next = (this.counts.get(key) ?? 0) + n;
		if (next > 0) this.counts.set(key, next);
		else this.counts.delete(key);
	}
	get(key: string): number {
		return this.counts.get(key) ?? 0;
	}
	keys(): IterableIterator<string> {
		return this.counts.keys();
	}
}

/**
 * Sends due deliveries, on every instance of the server. A delivery row is the whole state of
 * its retries, so a restart or a crash loses nothing: a lease left by a dead instance expires
 * and another claim takes the attempt again. The lease outlives the attempt (the send is cut
 * at `timeoutMs`, and no send starts once the lease is too near its end), so while one
 * instance still holds an attempt no other instance can take it.
 */
export class DeliveryWorker {
	private readonly leaseMs: number;
	private readonly sending = new Set<Promise<void>>();
	private readonly byOrganization = new InFlight();
	private readonly byEndpoint = new InFlight();
	/** Endpoints whose last attempt here timed out: SLOW_ENDPOINT at once until one answers in time. */
	private readonly slow = new Set<string>();
	/** Asks the job runner for another pass (jobs/run.ts): a send ended and freed its slot. */
	private slotFreed: () => void = () => undefined;

	constructor(
		private readonly db: Database,
		private readonly config: WebhookConfig,
		private readonly logger: Logger,
	) {
		this.leaseMs = 3 * config.timeoutMs + 5_000;
	}

	/** The job's wake-ups (jobs/table.ts): a delivery committed (wake.ts), or a send here ended. */
	wakeOn(wake: () => void): () => void {
		this.slotFreed = wake;
		const unsubscribe = onWake(wake);
		return () => {
			this.slotFreed = () => undefined;
			unsubscribe();
		};
	}

	/** Waits for the attempts in flight (each is bounded by the timeout). */
	async settle(): Promise<void> {
		await Promise.all(this.sending);
	}

	/** What each busy endpoint and organization may still take, as the claim's JSON maps. */
	private allowances(): { endpoints: string; organizations: string } {
		const endpoints: Record<string, number> = {};
		for (const id of new Set([...this.byEndpoint.keys(), ...this.slow])) {
			endpoints[id] = Math.max(0, (this.slow.has(id) ? SLOW_ENDPOINT : PER_ENDPOINT) - this.byEndpoint.get(id));
		}
		const organizations: Record<string, number> = {};
		for (const id of this.byOrganization.keys()) organizations[id] = Math.max(0, PER_ORGANIZATION - this.byOrganization.get(id));
		return { endpoints: JSON.stringify(endpoints), organizations: JSON.stringify(organizations) };
	}

	/** Sends one claimed delivery in the background; its slot frees, and the worker looks again, when it ends. */
	private launch(row: Claimed, token: string, leaseUntil: Date): void {
		this.byOrganization.add(row.organization_id, 1);
		this.byEndpoint.add(row.endpoint_id, 1);
		const sending: Promise<void> = this.attempt(row, token, leaseUntil)
			.catch((err: unknown) => this.logger.error({ err, delivery: row.id }, 'webhook delivery attempt failed'))
			.finally(() => {
				this.sending.delete(sending);
				this.byOrganization.add(row.organization_id, -1);
				this.byEndpoint.add(row.endpoint_id, -1);
				this.slotFreed();
			});
		this.sending.add(sending);
	}

	/** One pass of the webhook_deliveries job: claims due deliveries while slots are free and sends them. */
	async pass(stopping: AbortSignal): Promise<void> {
		while (!stopping.aborted) {
			const free = POOL - this.sending.size;
			if (free <= 0) return; // a send that ends wakes the worker
			const token = randomUUID();
			const now = new Date();
			const leaseUntil = new Date(now.getTime() + this.leaseMs);
			const { db } = this;
			const at = now.toISOString();
			// A read first: an idle poll then takes no write lock (SQLite) and locks no rows.
			const [found] = await db.read(due(db), [at]);
			if (!found) return;
			const { endpoints, organizations } = this.allowances();
			const choose = [at, free, endpoints, organizations];
			const claimed = await this.write(async (transaction) => {
				if (db.dialect === 'postgres') return db.rows<Claimed>(claimPostgres(db, CAPS), [...choose, leaseUntil.toISOString(), token], transaction);
				// Sequelize reads no rows back from an UPDATE on SQLite: select, update, read.
				const ids = (await db.rows<{ id: string }>(candidates(db, CAPS), choose, transaction)).map((r) => r.id);
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
			// Due rows all held back by their caps: a send that ends, or the next poll, looks again.
			if (claimed.length === 0) return;
			for (const row of claimed) this.launch(row, token, leaseUntil);
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
		// event was written is not sent what it can no longer read. A test event (POST …/test) is
		// sent whatever the endpoint subscribes to, while its key is active.
		const test = row.event_type === TEST_EVENT_TYPE;
		const owner = await ownerScopes(endpoint.apiKeyId);
		if (owner && (!owner.active || (!test && !deliverable(endpoint.eventList, owner.scopes, row.event_type)))) {
			const lastError = owner.active ? `the endpoint's API key cannot read ${row.event_type}` : "the endpoint's API key is no longer active";
			await this.finish(row, token, { status: 'failed', lastError });
			return;
		}
		const body = test ? await this.testBody(row) : await this.eventBody(row);
		if (body === undefined) {
			await this.finish(row, token, { status: 'failed', lastError: 'event no longer kept' });
			return;
		}
		let result: SendResult;
		// What this attempt sent and got back, for the delivery log; none when nothing was sent.
		let exchange: { lastRequest: string | null; lastResponseBody: string | null } = { lastRequest: null, lastResponseBody: null };
		let requestHeaders: string | null = null;
		const startedAt = new Date();
		try {
			const target = await checkWebhookUrl(endpoint.url, this.config);
			// Too close to the lease's end to finish within it: leave the attempt to the next claim.
			if (Date.now() + this.config.timeoutMs + 1_000 > leaseUntil.getTime()) return;
			const signed = this.signed(endpoint, body);
			if (!('headers' in signed)) {
				result = signed;
			} else {
				result = await send(target, signed.headers, body.json, this.config.timeoutMs);
				// Of a destination that is not public only the status and size of the answer are kept (SPEC §22).
				if (!target.public) result = { ...result, responseBody: undefined };
				const request: SentRequest = { headers: signed.headers, body: keptBody(body.json) };
				requestHeaders = JSON.stringify(signed.headers);
				exchange = { lastRequest: JSON.stringify(request), lastResponseBody: result.responseBody ?? null };
			}
		} catch (err) {
			if (!(err instanceof WebhookUrlError)) throw err;
			// Refused now: no kept socket to the host may carry a later send either.
			dropConnections(endpoint.url);
			result = { error: err.message };
		}
		const now = new Date();
		const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
		const tried: AttemptRecord = {
			deliveryId: row.id,
			attempt: row.attempts,
			startedAt,
			durationMs: now.getTime() - startedAt.getTime(),
			statusCode: result.status ?? null,
			error: ok ? null : (result.error ?? `HTTP ${result.status}`).slice(0, 300),
			requestHeaders,
			responseBody: result.responseBody ?? null,
			responseSize: result.responseSize ?? null,
		};
		// An endpoint that let an attempt time out is given fewer slots until it answers in time.
		if (result.timedOut) this.slow.add(endpoint.id);
		else if (result.status !== undefined) this.slow.delete(endpoint.id);
		if (ok) {
			await this.finish(row, token, { status: 'delivered', deliveredAt: now, lastStatusCode: result.status, lastError: null, ...exchange }, tried);
			if (endpoint.failingSince) {
				await this.write((transaction) => WebhookEndpoint.update({ failingSince: null }, { where: { id: endpoint.id }, transaction }));
			}
			return;
		}
		const next = nextAttemptAfter(row.attempts, this.config.retryBaseMs, now);
		const lastError = tried.error;
		await this.finish(row, token, {
			...(next ? { nextAttemptAt: next } : { status: 'failed' }),
			lastStatusCode: result.status ?? null,
			lastError,
			...exchange,
		}, tried);
		await this.noteFailure(endpoint, now);
		this.logger.warn(
			{ delivery: row.id, endpoint: endpoint.id, event: row.event_id, attempt: row.attempts, status: result.status, error: result.error },
			next ? 'webhook delivery failed; will retry' : 'webhook delivery failed for good',
		);
	}

	/**
	 * The event's JSON: the same bytes the feed serves. The event committed with this delivery, so
	 * it is read directly, not through the feed's hold-back (which may still hide it behind
	 * someone else's open transaction). Undefined once retention removed it.
	 */
	private async eventBody(row: Claimed): Promise<{ id: string; type: string; json: string } | undefined> {
		const [event] = await this.db.read<EventRow>(EVENT_BY_ID(this.db), [row.event_id]);
		return event && { id: event.id, type: event.type, json: eventJson(event) };
	}

	/** A test event is in no feed: its body is made from the delivery (webhooks/test-event.ts). */
	private async testBody(row: Claimed): Promise<{ id: string; type: string; json: string } | undefined> {
		const delivery = await WebhookDelivery.findByPk(row.id, { attributes: ['id', 'createdAt'] });
		return delivery ? { id: row.event_id, type: TEST_EVENT_TYPE, json: testEventJson(row.event_id, row.endpoint_id, delivery.createdAt) } : undefined;
	}

	/**
	 * The headers of the event's POST, signed with the endpoint's secret (and for 24 h after a
	 * rotation its previous one too: two v1=), opened from their seals for this send only.
	 */
	private signed(endpoint: WebhookEndpoint, body: { id: string; type: string; json: string }): { headers: Record<string, string> } | SendResult {
		let secrets: string[];
		try {
			secrets = signingSecrets(this.config, endpoint);
		} catch {
			// Sealed under a SEALING_SECRET this server was not given: retried like any failure.
			return { error: 'the signing secret cannot be opened: SEALING_SECRET changed (see docs/webhooks.md)' };
		}
		return {
			headers: {
				'Content-Type': 'application/json',
				'User-Agent': 'LMS-Webhooks/1',
				'LMS-Event-Id': body.id,
				'LMS-Event-Type': body.type,
				'LMS-Signature': signatureHeader(secrets, body.json),
			},
		};
	}

	/** Writes take turns with the process's other write transactions (db/write-transaction.ts). */
	private write<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
		return writeTransaction(this.db, work);
	}

	/**
	 * Records the outcome, if this claim still holds the lease. A receipt (webhooks/receipts) may
	 * have marked the delivery delivered while this attempt was out, its 2xx lost or not yet come:
	 * then the receipt stands (the attempt's status code and error are noted, its failure is not:
	 * a last attempt that fails must not turn a received event into a failed one, nor schedule a retry).
	 * A send (`tried`) is written to the delivery's attempts in the same transaction.
	 */
	private async finish(row: Claimed, token: string, changes: Partial<WebhookDelivery['_attributes']>, tried?: AttemptRecord): Promise<void> {
		const released = { leaseUntil: null, leaseToken: null };
		const recorded = await this.write(async (transaction) => {
			// The send happened whoever holds the lease now: it is in the delivery's attempts either way.
			if (tried) await recordAttempt(tried, transaction);
			const [updated] = await WebhookDelivery.update(
				{ ...changes, ...released },
				{ where: { id: row.id, leaseToken: token, status: 'pending' }, transaction },
			);
			if (updated === 1) return true;
			const noted = {
				lastStatusCode: changes.lastStatusCode ?? null,
				lastError: changes.lastError ?? null,
				lastRequest: changes.lastRequest ?? null,
				lastResponseBody: changes.lastResponseBody ?? null,
			};
			await WebhookDelivery.update({ ...noted, ...released }, { where: { id: row.id, leaseToken: token }, transaction });
			return false;
		});
		// Counted once it is recorded, so a scrape never sees the outcome before the row says it.
		if (recorded) webhookDeliveries.inc({ outcome: changes.status === 'delivered' ? 'delivered' : changes.status === 'failed' ? 'failed' : 'retrying' });
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
