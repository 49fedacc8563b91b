import type { Sequelize } from 'sequelize';

/**
 * What the connection pool is doing, for /metrics, told by Sequelize's public hooks
 * (afterConnect/afterDisconnect, beforePoolAcquire/afterPoolAcquire) rather than read from the
 * pool library's fields. "In use" has no hook (a release is silent), so it is not claimed:
 * the connections open, the most there may be, and who waits for one are what saturation shows.
 */
/** A wait a user would feel on a request: the pool is short of connections, not busy handing one out. */
const STUCK_MS = 100;

export class PoolWatch {
	private open = 0;
	/** Each acquisition under way, by its options object (the two hooks receive the same one): when it began. */
	private readonly waiting = new Map<object, number[]>();

	constructor(
		sequelize: Sequelize,
		/** The pool's size: DATABASE_POOL_MAX; SQLite's one connection. */
		readonly max: number,
		/** How long an acquisition may wait before Sequelize gives up on it, which no hook tells. */
		private readonly acquireTimeoutMs: number,
	) {
		sequelize.addHook('afterConnect', () => {
			this.open++;
		});
		sequelize.addHook('afterDisconnect', () => {
			this.open = Math.max(0, this.open - 1);
		});
		sequelize.addHook('beforePoolAcquire', (options) => {
			const started = this.waiting.get(options) ?? [];
			started.push(Date.now());
			this.waiting.set(options, started);
		});
		sequelize.addHook('afterPoolAcquire', (_connection, options) => {
			const started = this.waiting.get(options);
			started?.shift();
			if (started?.length === 0) this.waiting.delete(options);
		});
	}

	/** Connections the pool holds open, idle or busy. */
	connections(): number {
		return this.open;
	}

	/**
	 * Queries that have waited for a connection longer than STUCK_MS now. Every acquisition passes
	 * through the hooks, a free connection within microseconds: those are not waiting. One that
	 * waited past the timeout failed (no hook says so) and is forgotten.
	 */
	waiters(now = Date.now()): number {
		let n = 0;
		for (const [options, started] of this.waiting) {
			const live = started.filter((t) => now - t < this.acquireTimeoutMs);
			if (live.length === 0) this.waiting.delete(options);
			else this.waiting.set(options, live);
			n += live.filter((t) => now - t >= STUCK_MS).length;
		}
		return n;
	}
}
