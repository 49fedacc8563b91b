import type { RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Logger } from 'pino';

import type { Config } from '../config';
import { problems } from '../common/problem';
import { throttled } from '../metrics/registry';
import type { LimitStore } from './rate-limit-store';

/** /scim/v2 and below, in any case (Express routes paths ignoring case). */
const isScimPath = (path: string) => /^\/scim\/v2(\/|$)/i.test(path);

/**
 * The per-IP limit over all traffic but SCIM's (health checks are mounted before it), express-rate-limit's
 * own middleware; created once per app. Headers: IETF draft-8 `RateLimit`/`RateLimit-Policy`
 * plus the widely read legacy `X-RateLimit-*`, and `Retry-After` on a 429. The counting is the
 * store's (rate-limit-store.ts), which also turns a failure to count into the 503 (fail closed).
 */
export function createRateLimiter(
	config: Pick<Config, 'rateLimitPerMinute' | 'rateLimitWindowMs'>,
	limitStore: LimitStore,
	logger: Logger,
): RequestHandler {
	const { rateLimitPerMinute: limit, rateLimitWindowMs: windowMs } = config;
	return rateLimit({
		windowMs,
		limit,
		standardHeaders: 'draft-8',
		legacyHeaders: true,
		store: limitStore.store,
		// SCIM is limited per key instead (scim/limit.ts): identity providers share a few addresses.
		skip: (req) => isScimPath(req.path),
		// req.ip is the socket address unless TRUST_PROXY names the proxies; IPv6 clients are
		// grouped by /56, since one subscriber usually holds a whole prefix.
		ipv6Subnet: 56,
		// Its configuration checks (each reports once per process) go to our log, not the console.
		logger,
		handler: (_req, res, next) => {
			throttled.inc({ limit: 'api' });
			// The library has just set Retry-After to the seconds left in the window; the 429
			// problem says the same, and never "retry after 0 seconds".
			next(problems.rateLimited(Math.max(1, Number(res.getHeader('Retry-After')) || 0)));
		},
	});
}
