import { createHash } from 'node:crypto';

import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, type Options } from 'express-rate-limit';
import type { Logger } from 'pino';

import type { Config } from '../config';
import { problems } from '../common/problem';
import { throttled } from '../metrics/registry';
import type { LimitStore } from './rate-limit-store';

/** How the policy names its window, as express-rate-limit names it: `100-in-1min`. */
function policyName(limit: number, windowMs: number): string {
	const seconds = windowMs / 1000;
	const minutes = seconds / 60;
	const hours = minutes / 60;
	const days = hours / 24;
	if (seconds < 60) return `${limit}-in-${seconds}sec`;
	if (minutes < 60) return `${limit}-in-${minutes}min`;
	if (hours < 24) return `${limit}-in-${hours}hr${hours > 1 ? 's' : ''}`;
	return `${limit}-in-${days}day${days > 1 ? 's' : ''}`;
}

/**
 * The draft-8 partition key: names the caller's counter without showing its address (the first
 * twelve hex digits of its SHA-256, as a byte sequence). Kept for the clients seen lately, since
 * a client usually sends many requests: hashing on each was the limiter's largest cost.
 */
const partitionKeys = new Map<string, string>();
const PARTITION_KEYS_KEPT = 1_000;

function partitionKey(key: string): string {
	let found = partitionKeys.get(key);
	if (found === undefined) {
		found = Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');
		if (partitionKeys.size >= PARTITION_KEYS_KEPT) partitionKeys.clear();
		partitionKeys.set(key, found);
	}
	return found;
}

/**
 * The per-IP limit over all traffic (health checks are mounted before it). Created once per
 * app. Headers: IETF draft-8 `RateLimit`/`RateLimit-Policy` plus the widely read legacy
 * `X-RateLimit-*`, and `Retry-After` on a 429.
 *
 * The counting is the store's (express-rate-limit's MemoryStore, or rate-limit-redis when
 * instances share a limit; rate-limit-store.ts); this middleware only asks it and writes the
 * answer. express-rate-limit's own middleware did the same in six awaits, worked out the client
 * address twice and checked its configuration on every request: a twentieth of a list request.
 */
export function createRateLimiter(
	config: Pick<Config, 'rateLimitPerMinute' | 'rateLimitWindowMs'>,
	limitStore: LimitStore,
	logger: Logger,
): RequestHandler {
	const { rateLimitPerMinute: limit, rateLimitWindowMs: windowMs } = config;
	const { store } = limitStore;
	// The stores read only the window from the options they are given.
	const init = store.init?.({ windowMs, limit } as Options);
	if (init instanceof Promise) {
		init.catch((err: unknown) => logger.error({ err }, 'rate-limit store failed to start'));
	}
	const name = `"${policyName(limit, windowMs)}"`;
	const windowSeconds = Math.ceil(windowMs / 1000);
	const limitText = String(limit);

	return async (req: Request, res, next) => {
		// req.ip is the socket address unless TRUST_PROXY names the proxies; IPv6 clients are
		// grouped by /56, since one subscriber usually holds a whole prefix.
		const key = ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown');
		// A store that cannot count throws the 503 problem (fail closed).
		const { totalHits, resetTime } = await store.increment(key);
		const remaining = Math.max(limit - totalHits, 0);
		const resetSeconds = resetTime ? Math.max(0, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : windowSeconds;
		res.setHeader('X-RateLimit-Limit', limitText);
		res.setHeader('X-RateLimit-Remaining', String(remaining));
		if (resetTime) res.setHeader('X-RateLimit-Reset', String(Math.ceil(resetTime.getTime() / 1000)));
		res.setHeader('RateLimit', `${name}; r=${remaining}; t=${resetSeconds}`);
		res.setHeader('RateLimit-Policy', `${name}; q=${limit}; w=${windowSeconds}; pk=:${partitionKey(key)}:`);
		if (totalHits > limit) {
			throttled.inc({ limit: 'api' });
			throw problems.rateLimited(Math.max(1, resetSeconds));
		}
		next();
	};
}
