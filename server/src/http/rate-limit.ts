import type { Request } from 'express';
import { ipKeyGenerator, rateLimit, type RateLimitRequestHandler } from 'express-rate-limit';
import type { Logger } from 'pino';

import type { Config } from '../config';
import { problems } from '../common/problem';
import { describeError } from './logging';
import type { LimitStore } from './rate-limit-store';

/** Seconds until the caller's window resets, as the Retry-After header and the problem say. */
function retryAfterSeconds(req: Request, windowMs: number): number {
	const reset = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
	const ms = reset ? reset.getTime() - Date.now() : windowMs;
	return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * The per-IP limit over all traffic (health checks are mounted before it). Created once per
 * app. Headers: IETF draft-8 `RateLimit`/`RateLimit-Policy` plus the widely read legacy
 * `X-RateLimit-*`, and `Retry-After` on a 429.
 */
export function createRateLimiter(
	config: Pick<Config, 'rateLimitPerMinute' | 'rateLimitWindowMs'>,
	limitStore: LimitStore,
	logger: Logger,
): RateLimitRequestHandler {
	return rateLimit({
		windowMs: config.rateLimitWindowMs,
		limit: config.rateLimitPerMinute,
		standardHeaders: 'draft-8',
		legacyHeaders: true,
		// req.ip is the socket address unless TRUST_PROXY names the proxies; IPv6 clients are
		// grouped by /56, since one subscriber usually holds a whole prefix.
		keyGenerator: (req) => ipKeyGenerator(req.ip ?? req.socket.remoteAddress ?? 'unknown'),
		store: limitStore.store,
		passOnStoreError: false,
		retryAfter: (req) => retryAfterSeconds(req, config.rateLimitWindowMs),
		handler: (req, _res, next) => next(problems.rateLimited(retryAfterSeconds(req, config.rateLimitWindowMs))),
		// Ignoring X-Forwarded-For without TRUST_PROXY is the intended behaviour, not a mistake.
		validate: { xForwardedForHeader: false, forwardedHeader: false },
		logger: {
			error: (err: unknown, message?: string) => logger.error({ err: describeError(err) }, message ?? 'rate limiter error'),
			warn: (err: unknown, message?: string) => logger.warn({ err: describeError(err) }, message ?? 'rate limiter warning'),
		},
	});
}
