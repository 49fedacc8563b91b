import { randomUUID } from 'node:crypto';

import type { Logger } from 'pino';
import type { Transaction } from 'sequelize';

import type { WebhookConfig } from '../config';
import type { Database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { eventJson, type EventRow } from '../events/feed';
import { webhookDeliveries } from '../metrics/registry';
import { deliverable } from './event-types';
import { WebhookEndpoint } from './model';
import { isPastExpiry, scopeList, type Scope } from '../api-keys/model';
import { dropConnections } from './connections';
import { claim, CLAIM_ENDPOINTS, due, EVENTS_BY_ID, noteOutcomes, recordOutcomes } from './queries';
import { recordAttempts, type AttemptRecord } from './attempts';
import { keptBody, type SentRequest } from './exchange';
import { DISABLE_AFTER_MS, nextAttemptAfter } from './schedule';
import { send, type SendResult } from './send';
import { signatureHeader } from './signature';
import { checkWebhookUrl, WebhookUrlError } from './url-policy';
import { signingSecrets } from './secrets';
import { TEST_EVENT_TYPE, testEventJson } from './test-event';
import { onWake } from './wake';
import { PER_ENDPOINT, PER_ORGANIZATION, POOL, SLOW_ENDPOINT } from './caps';

const CAPS = { endpoint: PER_ENDPOINT, organization: PER_ORGANIZATION };
/**
 * Slots are refilled in batches (issue 40): a pass when REFILL sends have ended since the last
 * one, or REFILL_MS after the first of them ended, rather than a claim (a write transaction and
 * its reads) for every send that ends. A delivery just committed still wakes a pass at once
 * (wake.ts), so another organization's event waits for no batch.
 */
const REFILL = 16;
const REFILL_MS = 10;
/**
 * Outcomes are recorded in batches too: a write once FLUSH_BATCH have come, or FLUSH_MS after the
 * first of them. Written as they came, a write (a transaction of two statements) recorded one or
 * two outcomes at a few hundred deliveries a second: the biggest share of a delivery's CPU on
 * SQLite (issue 40). The row stays leased meanwhile, so no other claim can take it. A failure is
 * recorded at once, with the outcomes gathered so far: its retry is due from the attempt's end.
 * 64 and 50 ms rather than 32 and 20: at ~700 deliveries a second a write then records ~35
 * outcomes instead of ~25, and a write's own cost (its transaction, the COMMIT's pages) was still
 * a sixth of a delivery's CPU on SQLite (0.83 -> 0.69 ms, the same rate).
 */
const FLUSH_BATCH = 64;
const FLUSH_MS = 50;

interface Claimed {
	id: string;
	organization_id: string;
	endpoint_id: string;
	event_id: string;
	event_type: string;
	attempts: number;
	/** When the delivery was queued (ISO 8601): a test event's created_at. */
	created_at: string;
}

/** An endpoint as a claim reads it (queries.ts CLAIM_ENDPOINTS), with its owner key's status and scopes now. */
interface ClaimEndpoint {
	id: string;
	url: string;
	events: string;
	status: string;
	/** Sealed (secrets.ts), as stored. */
	secret: string;
	previousSecret: string | null;
	previousSecretUntil: Date | null;
	failingSince: Date | null;
	apiKeyId: string | null;
	/** The owner key as it is now; undefined for an endpoint without one (sent what it subscribes to). */
	owner?: { active: boolean; scopes: Scope[] };
}

interface ClaimEndpointRow {
	id: string;
	url: string;
	events: string;
	status: string;
	secret: string;
	previous_secret: string | null;
	previous_secret_until: string | null;
	failing_since: string | null;
	api_key_id: string | null;
	key_status: string | null;
	key_scopes: string | null;
	key_expires_at: string | null;
}

const dateOrNull = (iso: string | null) => (iso === null ? null : new Date(iso));

/**
 * A key past its expiry date is no longer active: it reaches nothing through its endpoints, as it
 * reaches nothing through the API; a key that is gone neither.
 */
function claimEndpoint(row: ClaimEndpointRow): ClaimEndpoint {
	return {
		id: row.id,
		url: row.url,
		events: row.events,
		status: row.status,
		secret: row.secret,
		previousSecret: row.previous_secret,
		previousSecretUntil: dateOrNull(row.previous_secret_until),
		failingSince: dateOrNull(row.failing_since),
		apiKeyId: row.api_key_id,
		owner:
			row.api_key_id === null
				? undefined
				: { active: row.key_status === 'active' && !isPastExpiry(row.key_expires_at), scopes: row.key_scopes === null ? [] : scopeList(row.key_scopes) },
	};
}

/** What a claim's sends need, read once per claim rather than once per delivery. */
interface ClaimContext {
	endpoints: Map<string, ClaimEndpoint>;
	events: Map<string, EventRow>;
	/** Each endpoint's signing secrets, opened from their seals at its first send of the claim. */
	secrets: Map<string, string[] | SendResult>;
}

/** What one attempt ends with, recorded together with the other outcomes of its moment (flush). */
interface Outcome {
	row: Claimed;
	token: string;
	status: 'pending' | 'delivered' | 'failed';
	nextAttemptAt: Date | null;
	deliveredAt: Date | null;
	lastStatusCode: number | null;
	lastError: string | null;
	/** What this attempt sent and got back, for the delivery log; null when nothing was sent. */
	lastRequest: string | null;
	lastResponseBody: string | null;
	/** A send that reached the receiver with a 2xx, or failed: the endpoint's run of failures follows it. */
	endpoint?: { model: ClaimEndpoint; succeeded: boolean };
	/** The send, for the delivery's attempts; none when the attempt ended before sending. */
	tried?: AttemptRecord;
}

/** The fields of an outcome whose attempt sent nothing. */
const NOTHING_SENT = { nextAttemptAt: null, deliveredAt: null, lastStatusCode: null, lastRequest: null, lastResponseBody: null } as const;

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
	/** Sends ended since the last pass, and the timer that runs a pass for them if no batch fills first. */
	private freed = 0;
	private refill: NodeJS.Timeout | undefined;
	/** Outcomes not yet recorded, and the write recording the ones before them. */
	private outcomes: Outcome[] = [];
	private flushing: Promise<void> | undefined;
	/** Ends the wait of the write being gathered, once FLUSH_BATCH outcomes are queued. */
	private batchFull: (() => void) | undefined;

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
			clearTimeout(this.refill);
			unsubscribe();
		};
	}

	/** Waits for the attempts in flight (each is bounded by the timeout) and for their outcomes to be recorded. */
	async settle(): Promise<void> {
		await Promise.all(this.sending);
		await this.flushing;
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

	/**
	 * Sends one claimed delivery in the background; its slot frees, and the worker looks again,
	 * when the send ends. Its outcome is recorded with others (the row stays leased meanwhile).
	 */
	private launch(row: Claimed, context: ClaimContext, token: string, leaseUntil: Date): void {
		this.byOrganization.add(row.organization_id, 1);
		this.byEndpoint.add(row.endpoint_id, 1);
		const sending: Promise<void> = this.attempt(row, context, token, leaseUntil)
			.then((outcome) => {
				if (outcome) this.record(outcome);
			})
			.catch((err: unknown) => this.logger.error({ err, delivery: row.id }, 'webhook delivery attempt failed'))
			.finally(() => {
				this.sending.delete(sending);
				this.byOrganization.add(row.organization_id, -1);
				this.byEndpoint.add(row.endpoint_id, -1);
				this.slotEnded();
			});
		this.sending.add(sending);
	}

	/** A send ended: a pass once REFILL have, or REFILL_MS after the first, or now if none is left in flight. */
	private slotEnded(): void {
		this.freed += 1;
		if (this.freed >= REFILL || this.sending.size === 0) {
			this.refillNow();
			return;
		}
		this.refill ??= setTimeout(() => this.refillNow(), REFILL_MS).unref();
	}

	private refillNow(): void {
		clearTimeout(this.refill);
		this.refill = undefined;
		this.freed = 0;
		this.slotFreed();
	}

	/** One pass of the webhook_deliveries job: claims due deliveries while slots are free and sends them. */
	async pass(stopping: AbortSignal): Promise<void> {
		// This pass refills whatever slots are free by now: no batch is owed for them.
		clearTimeout(this.refill);
		this.refill = undefined;
		this.freed = 0;
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
			const claimed = await this.write((transaction) =>
				db.rows<Claimed>(claim(db, CAPS), [at, free, endpoints, organizations, leaseUntil.toISOString(), token], transaction),
			);
			// Due rows all held back by their caps: a send that ends, or the next poll, looks again.
			if (claimed.length === 0) return;
			const context = await this.contextOf(claimed);
			for (const row of claimed) this.launch(row, context, token, leaseUntil);
			// Fewer than the free slots: the caps hold back every other due row, so another claim now
			// would take none (it was every other claim of a busy worker, a write for nothing: issue 40).
			// A send that ends, a delivery committed or the next poll runs the next pass.
			if (claimed.length < free) return;
		}
	}

	/** The claim's endpoints with their keys' scopes, and its events: two prepared reads for the whole claim. */
	private async contextOf(claimed: readonly Claimed[]): Promise<ClaimContext> {
		const { db } = this;
		const endpoints = await db.read<ClaimEndpointRow>(CLAIM_ENDPOINTS(db), [JSON.stringify([...new Set(claimed.map((r) => r.endpoint_id))])]);
		const eventIds = [...new Set(claimed.filter((r) => r.event_type !== TEST_EVENT_TYPE).map((r) => r.event_id))];
		const events = eventIds.length === 0 ? [] : await db.read<EventRow>(EVENTS_BY_ID(db), [JSON.stringify(eventIds)]);
		return { endpoints: new Map(endpoints.map((e) => [e.id, claimEndpoint(e)])), events: new Map(events.map((e) => [e.id, e])), secrets: new Map() };
	}

	/** Sends one claimed delivery; returns its outcome, or undefined when there is nothing to record. */
	private async attempt(row: Claimed, context: ClaimContext, token: string, leaseUntil: Date): Promise<Outcome | undefined> {
		const endpoint = context.endpoints.get(row.endpoint_id);
		// Removed since the claim (with its organization): nothing is sent.
		if (!endpoint) return undefined;
		const failed = (lastError: string): Outcome => ({ ...NOTHING_SENT, row, token, status: 'failed', lastError });
		if (endpoint.status !== 'enabled') return failed(`endpoint ${endpoint.status}`);
		// The key's scopes as they are now decide (SPEC §19): a key whose scopes shrank since the
		// event was written is not sent what it can no longer read. A test event (POST …/test) is
		// sent whatever the endpoint subscribes to, while its key is active.
		const test = row.event_type === TEST_EVENT_TYPE;
		const { owner } = endpoint;
		if (owner && (!owner.active || (!test && !deliverable(endpoint.events.split(' ').filter(Boolean), owner.scopes, row.event_type)))) {
			return failed(owner.active ? `the endpoint's API key cannot read ${row.event_type}` : "the endpoint's API key is no longer active");
		}
		const body = this.bodyOf(row, context);
		if (body === undefined) return failed('event no longer kept');
		let result: SendResult;
		let exchange: { lastRequest: string | null; lastResponseBody: string | null } = { lastRequest: null, lastResponseBody: null };
		let requestHeaders: string | null = null;
		const startedAt = new Date();
		try {
			const target = await checkWebhookUrl(endpoint.url, this.config);
			// Too close to the lease's end to finish within it: leave the attempt to the next claim.
			if (Date.now() + this.config.timeoutMs + 1_000 > leaseUntil.getTime()) return undefined;
			const signed = this.signed(endpoint, context, body);
			if (!('headers' in signed)) {
				result = signed;
			} else {
				result = await send(target, signed.headers, body.json, this.config.timeoutMs);
				// Of a destination that is not public only the status and size of the answer are kept (SPEC §22).
				if (!target.public) result = { ...result, responseBody: undefined };
				requestHeaders = JSON.stringify(signed.headers);
				const request: SentRequest = { headers: signed.headers, body: keptBody(body.json) };
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
		const lastError = ok ? null : (result.error ?? `HTTP ${result.status}`).slice(0, 300);
		const tried: AttemptRecord = {
			deliveryId: row.id,
			attempt: row.attempts,
			startedAt,
			durationMs: now.getTime() - startedAt.getTime(),
			statusCode: result.status ?? null,
			error: lastError,
			requestHeaders,
			responseBody: result.responseBody ?? null,
			responseSize: result.responseSize ?? null,
		};
		// An endpoint that let an attempt time out is given fewer slots until it answers in time.
		if (result.timedOut) this.slow.add(endpoint.id);
		else if (result.status !== undefined) this.slow.delete(endpoint.id);
		if (ok) {
			return {
				...exchange,
				row,
				token,
				status: 'delivered',
				nextAttemptAt: null,
				deliveredAt: now,
				lastStatusCode: result.status!,
				lastError: null,
				endpoint: { model: endpoint, succeeded: true },
				tried,
			};
		}
		const next = nextAttemptAfter(row.attempts, this.config.retryBaseMs, now);
		this.logger.warn(
			{ delivery: row.id, endpoint: endpoint.id, event: row.event_id, attempt: row.attempts, status: result.status, error: result.error },
			next ? 'webhook delivery failed; will retry' : 'webhook delivery failed for good',
		);
		return {
			...exchange,
			row,
			token,
			status: next ? 'pending' : 'failed',
			nextAttemptAt: next ?? null,
			deliveredAt: null,
			lastStatusCode: result.status ?? null,
			lastError,
			endpoint: { model: endpoint, succeeded: false },
			tried,
		};
	}

	/**
	 * The event's JSON: the same bytes the feed serves (read by id with the claim, not through
	 * the feed's paging); undefined once retention removed it. A test event is in no feed: its body is made from the delivery.
	 */
	private bodyOf(row: Claimed, context: ClaimContext): { id: string; type: string; json: string } | undefined {
		if (row.event_type === TEST_EVENT_TYPE) {
			return { id: row.event_id, type: TEST_EVENT_TYPE, json: testEventJson(row.event_id, row.endpoint_id, new Date(row.created_at)) };
		}
		const event = context.events.get(row.event_id);
		return event && { id: event.id, type: event.type, json: eventJson(event) };
	}

	/**
	 * The headers of the event's POST, signed with the endpoint's secret (and for 24 h after a
	 * rotation its previous one too: two v1=), opened from their seals once per claim.
	 */
	private signed(endpoint: ClaimEndpoint, context: ClaimContext, body: { id: string; type: string; json: string }): { headers: Record<string, string> } | SendResult {
		let secrets = context.secrets.get(endpoint.id);
		if (secrets === undefined) {
			try {
				secrets = signingSecrets(this.config, endpoint);
			} catch {
				// Sealed under a SEALING_SECRET this server was not given: retried like any failure.
				secrets = { error: 'the signing secret cannot be opened: SEALING_SECRET changed (see docs/webhooks.md)' };
			}
			context.secrets.set(endpoint.id, secrets);
		}
		if (!Array.isArray(secrets)) return secrets;
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
	 * Queues an outcome for the next write: the outcomes that come within FLUSH_MS, or while one
	 * write records others, are recorded together by the next.
	 */
	private record(outcome: Outcome): void {
		this.outcomes.push(outcome);
		if (this.outcomes.length >= FLUSH_BATCH || outcome.status !== 'delivered') this.batchFull?.();
		if (this.flushing) return;
		this.flushing = this.flush()
			.catch((err: unknown) => this.logger.error({ err }, 'recording webhook delivery outcomes failed'))
			.finally(() => (this.flushing = undefined));
	}

	/**
	 * Records the queued outcomes, each write one transaction with one UPDATE for all its outcomes,
	 * on the rows whose lease their claim still holds. A receipt (webhooks/receipts) may have
	 * marked a delivery delivered while its attempt was out, its 2xx lost or not yet come: then the
	 * receipt stands (the attempt's status code and error are noted, its failure is not: a last
	 * attempt that fails must not turn a received event into a failed one, nor schedule a retry).
	 * The sends are added to their deliveries' attempts in the same transaction, in one INSERT.
	 * An outcome lost with the process leaves its row leased: the attempt is taken again.
	 */
	private async flush(): Promise<void> {
		const { db } = this;
		while (this.outcomes.length > 0) {
			if (this.outcomes.length < FLUSH_BATCH && this.outcomes.every((o) => o.status === 'delivered')) {
				await new Promise<void>((resolve) => {
					const timer = setTimeout(resolve, FLUSH_MS);
					this.batchFull = () => {
						clearTimeout(timer);
						resolve();
					};
				});
				this.batchFull = undefined;
			}
			const batch = this.outcomes;
			this.outcomes = [];
			const now = new Date().toISOString();
			const list = JSON.stringify(
				batch.map((o) => ({
					id: o.row.id,
					token: o.token,
					status: o.status,
					next_attempt_at: o.nextAttemptAt?.toISOString() ?? null,
					delivered_at: o.deliveredAt?.toISOString() ?? null,
					last_status_code: o.lastStatusCode,
					last_error: o.lastError,
					last_request: o.lastRequest,
					last_response_body: o.lastResponseBody,
				})),
			);
			const recorded = await this.write(async (transaction) => {
				// The sends happened whoever holds the leases now: they are in their deliveries' attempts either way.
				await recordAttempts(db, batch.flatMap((o) => (o.tried ? [o.tried] : [])), transaction);
				const ids = new Set((await db.rows<{ id: string }>(recordOutcomes(db), [list, now], transaction)).map((r) => r.id));
				if (ids.size < batch.length) await db.run(noteOutcomes(db), [list, now], transaction);
				return ids;
			});
			await this.followEndpoints(batch);
			// Counted once recorded, so a scrape never sees an outcome before the row says it.
			for (const o of batch) if (recorded.has(o.row.id)) webhookDeliveries.inc({ outcome: o.status === 'pending' ? 'retrying' : o.status });
		}
	}

	/**
	 * Each endpoint's run of failures, after its last send among the outcomes: a success ends it;
	 * a failure starts it, or after three days of it disables the endpoint. In a transaction of its
	 * own, as deleting an endpoint locks it before its deliveries: taken after the deliveries' rows,
	 * its lock could deadlock with a deletion.
	 */
	private async followEndpoints(batch: readonly Outcome[]): Promise<void> {
		const last = new Map<string, { model: ClaimEndpoint; succeeded: boolean }>();
		for (const o of batch) if (o.endpoint) last.set(o.endpoint.model.id, o.endpoint);
		const now = new Date();
		const failingFor = (endpoint: ClaimEndpoint) => (endpoint.failingSince ? now.getTime() - endpoint.failingSince.getTime() : undefined);
		const changing = [...last.values()].filter(({ model, succeeded }) => {
			const failing = failingFor(model);
			return succeeded ? failing !== undefined : failing === undefined || failing >= DISABLE_AFTER_MS;
		});
		if (changing.length === 0) return;
		await this.write(async (transaction) => {
			for (const { model: endpoint, succeeded } of changing) {
				if (succeeded) {
					await WebhookEndpoint.update({ failingSince: null }, { where: { id: endpoint.id }, transaction });
				} else if (failingFor(endpoint) === undefined) {
					await WebhookEndpoint.update({ failingSince: now }, { where: { id: endpoint.id, failingSince: null }, transaction });
				} else {
					await WebhookEndpoint.update({ status: 'disabled', disabledReason: 'three days of failed deliveries' }, { where: { id: endpoint.id, status: 'enabled' }, transaction });
					this.logger.warn({ endpoint: endpoint.id }, 'webhook endpoint disabled after three days of failures');
				}
			}
		});
	}
}
