import { MemoryStore, type IncrementResponse, type Options, type Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import { RedisStore } from 'rate-limit-redis';
import { createClient } from 'redis';

import { problems } from '../common/problem';

/**
 * Where the per-IP counters live: in memory for one process, in Redis when several processes
 * must share one limit. Whatever the store, a failure to count refuses the request with a 503
 * (fail closed): serving without a limit would silently break the promise that the limit
 * holds for the whole deployment.
 */
export interface LimitStore {
	store: Store;
	/**
	 * Another limiter's counters in the same place (express-rate-limit wants one store per
	 * limiter): the same Redis under the prefix plus `name:`, or a memory store of its own.
	 */
	scoped(name: string): Store;
	/** `memory`, `redis` or `custom` (injected by a caller). */
	kind: string;
	/** Resolves when the store can count; rejects with the reason otherwise. */
	check(): Promise<void>;
	close(): Promise<void>;
}

/** Wraps a store so that any failure to count becomes the 503 Problem. */
class FailClosedStore implements Store {
	localKeys: boolean | undefined;
	prefix: string | undefined;
	private failing = false;

	constructor(
		private readonly inner: Store,
		private readonly logger: Logger,
	) {
		this.localKeys = inner.localKeys;
		this.prefix = inner.prefix;
	}

	init(options: Options): void | Promise<void> {
		return this.inner.init?.(options);
	}

	async increment(key: string): Promise<IncrementResponse> {
		try {
			const result = await this.inner.increment(key);
			if (this.failing) this.logger.info('rate-limit store is back; serving requests again');
			this.failing = false;
			return result;
		} catch (err) {
			// Once per outage, not once per refused request.
			if (!this.failing) this.logger.error({ err }, 'rate-limit store failed; refusing requests with 503');
			this.failing = true;
			throw problems.rateLimitUnavailable();
		}
	}

	async decrement(key: string): Promise<void> {
		await this.inner.decrement(key);
	}

	async resetKey(key: string): Promise<void> {
		await this.inner.resetKey(key);
	}

	async shutdown(): Promise<void> {
		await this.inner.shutdown?.();
	}
}

/**
 * rate-limit-redis loads its Lua scripts once, at init; if Redis was unreachable then, the
 * failed load would be remembered forever. Reload them after any failure so the limiter
 * recovers by itself when Redis comes back.
 */
class RecoveringRedisStore extends RedisStore {
	async increment(key: string): Promise<IncrementResponse> {
		try {
			return await super.increment(key);
		} catch (err) {
			this.incrementScriptSha = this.loadIncrementScript();
			this.incrementScriptSha.catch(() => undefined);
			throw err;
		}
	}
}

/** `connect ECONNREFUSED 127.0.0.1:6390`, also for an AggregateError (every address of a name refused). */
function connectionFailure(err: unknown): string {
	if (err instanceof AggregateError && err.errors.length > 0) return err.errors.map(connectionFailure).join('; ');
	return err instanceof Error ? err.message || err.name : String(err);
}

function redisLimitStore(url: string, prefix: string, logger: Logger): LimitStore {
	const client = createClient({
		url,
		// Fail fast while disconnected instead of queueing requests behind a dead connection.
		disableOfflineQueue: true,
		socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2000) },
	});
	let lastError = '';
	client.on('error', (err: unknown) => {
		const message = connectionFailure(err);
		// The logger's serializer describes `err`; a connection refused on every address of a
		// name arrives as an AggregateError whose own message is empty, so name its parts.
		if (message !== lastError) logger.error({ err, reason: connectionFailure(err) }, 'redis (rate-limit store) error');
		lastError = message;
	});
	client.on('ready', () => {
		lastError = '';
	});
	// Requests that arrive while the first connection is still being made wait for it briefly;
	// after that, a command sent while Redis is away fails at once (and the request gets a 503).
	const firstReady = new Promise<void>((resolve) => client.once('ready', () => resolve()));
	const startup = Promise.race([firstReady, new Promise<void>((resolve) => setTimeout(resolve, 2000).unref())]);
	client.connect().catch(() => undefined);
	const storeAt = (at: string) =>
		new RecoveringRedisStore({
			prefix: at,
			sendCommand: async (...args: string[]) => {
				if (!client.isReady) await startup;
				return client.sendCommand(args);
			},
		});
	return {
		store: storeAt(prefix),
		scoped: (name) => storeAt(`${prefix}${name}:`),
		kind: 'redis',
		async check() {
			if (!client.isReady) await startup;
			if (!client.isReady) throw new Error(lastError || 'not connected yet');
			await client.ping();
		},
		async close() {
			if (client.isReady) await client.close();
			else if (client.isOpen) client.destroy();
		},
	};
}

/** The server refuses to start without the shared store it was told to use. */
class LimitStoreUnavailableError extends Error {
	/** Checked by `code`, as the socket errors are, so the CLI need not load the web layer. */
	readonly code = 'LIMIT_STORE_UNAVAILABLE';
}

/**
 * Waits, a bounded time, until the store can count: a Redis restarting beside a deploy is waited
 * for; one that does not answer stops the start with the reason. Listening without it would only
 * answer 503 to every request behind a green liveness probe.
 */
export async function waitForLimitStore(limitStore: LimitStore, timeoutMs: number): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		try {
			return await limitStore.check();
		} catch (err) {
			if (Date.now() >= deadline) {
				throw new LimitStoreUnavailableError(
					`cannot reach Redis at REDIS_URL after ${Math.round(timeoutMs / 1000)} s (${connectionFailure(err)}): the per-IP limit is shared through it, so the server does not start without it. Start Redis, correct REDIS_URL, or unset it to count per process.`,
				);
			}
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}
}

export function createLimitStore(options: {
	redisUrl?: string;
	/** Redis key prefix of the counters (default `lms:rl:`). */
	redisPrefix?: string;
	injected?: Store;
	logger: Logger;
}): LimitStore {
	let limitStore: LimitStore;
	if (options.injected) {
		const injected = options.injected;
		limitStore = { store: injected, scoped: () => injected, kind: 'custom', check: () => Promise.resolve(), close: () => Promise.resolve() };
	} else if (options.redisUrl) {
		limitStore = redisLimitStore(options.redisUrl, options.redisPrefix ?? 'lms:rl:', options.logger);
	} else {
		const stores = [new MemoryStore()];
		limitStore = {
			store: stores[0],
			scoped: () => {
				const scoped = new MemoryStore();
				stores.push(scoped);
				return scoped;
			},
			kind: 'memory',
			check: () => Promise.resolve(),
			close: () => {
				for (const memory of stores) memory.shutdown();
				return Promise.resolve();
			},
		};
	}
	const inner = limitStore;
	return { ...inner, store: new FailClosedStore(inner.store, options.logger), scoped: (name) => new FailClosedStore(inner.scoped(name), options.logger) };
}
