import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Logger } from 'pino';

import type { Config } from '../config';
import type { LimitStore } from '../http/rate-limit-store';
import { throttled } from '../metrics/registry';
import { ScimError } from './errors';

/**
 * SCIM's limit (SPEC §21): per API key, not per IP, since an identity provider sends every
 * tenant's traffic from a few shared addresses; SCIM_RATE_LIMIT_PER_MINUTE in the same store as
 * the per-IP limit (memory, or the deployment's Redis), counted by the key's id. A request whose
 * key did not authenticate has no key to count, so it is counted by its address at the per-IP
 * limit, as it would be on /api/v1. Over the limit: 429 in SCIM's error schema with Retry-After.
 */
export function createScimLimiter(
	config: Pick<Config, 'rateLimitPerMinute' | 'rateLimitWindowMs' | 'scimRateLimitPerMinute'>,
	limitStore: LimitStore,
	logger: Logger,
): (req: Request, res: Response) => Promise<void> {
	const keyId = (res: Response) => (res.locals.caller as { apiKey?: { id: string } } | undefined)?.apiKey?.id;
	const limiter: RequestHandler = rateLimit({
		windowMs: config.rateLimitWindowMs,
		limit: (_req, res) => (keyId(res) === undefined ? config.rateLimitPerMinute : config.scimRateLimitPerMinute),
		keyGenerator: (req, res) => {
			const id = keyId(res);
			return id === undefined ? `ip:${ipKeyGenerator(req.ip ?? '', 56)}` : `key:${id}`;
		},
		standardHeaders: 'draft-8',
		legacyHeaders: true,
		store: limitStore.scoped('scim'),
		logger,
		handler: (_req, res, next) => {
			throttled.inc({ limit: 'scim' });
			const seconds = Math.max(1, Number(res.getHeader('Retry-After')) || 0);
			const who = keyId(res) === undefined ? 'This IP address sent' : 'This API key sent';
			next(new ScimError(429, undefined, `${who} too many SCIM requests. Retry after ${seconds} seconds.`, { 'Retry-After': String(seconds) }));
		},
	});
	return (req, res) =>
		new Promise<void>((resolve, reject) => {
			void limiter(req, res, (err?: unknown) => (err === undefined ? resolve() : reject(err instanceof Error ? err : new Error('rate limiter failed'))));
		});
}
