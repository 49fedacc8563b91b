import express from 'express';
import type { Store } from 'express-rate-limit';
import helmet from 'helmet';

import { mountScim } from '../scim/routes';
import { createSettingsRouter } from '../settings/router';
import { mountApi } from './api-router';
import type { AppDeps } from './deps';
import { errorHandler, notFoundHandler } from './errors';
import { healthRoutes } from './health';
import { httpLogger } from './logging';
import { countRequests, metricsRoute } from './metrics';
import { createRateLimiter } from './rate-limit';
import { createLimitStore, type LimitStore } from './rate-limit-store';
import { requestId } from './request-id';

export interface AppOptions {
	/** A rate-limit store to use instead of memory / REDIS_URL (tests, custom deployments). */
	rateLimitStore?: Store;
}

declare global {
	// eslint-disable-next-line @typescript-eslint/no-namespace
	namespace Express {
		interface Locals {
			/** Released by startServer's close(): the limiter's store connection, if any. */
			limitStore?: LimitStore;
		}
	}
}

/**
 * The whole web application, without a network socket (server.ts listens). The order below
 * is the order every request goes through. db/connect() must have run: the app serves the
 * database the models are bound to.
 */
export function createApp(deps: AppDeps, opts: AppOptions = {}): express.Application {
	const { config, logger } = deps;
	const app = express();
	app.disable('x-powered-by');
	// Never "trust everything": config refuses it; false (the socket address) by default.
	app.set('trust proxy', config.trustProxy);

	const limitStore = createLimitStore({
		redisUrl: config.redisUrl,
		redisPrefix: config.rateLimitRedisPrefix,
		injected: opts.rateLimitStore,
		logger,
	});
	app.locals.limitStore = limitStore;
	app.locals.publicUrl = config.publicUrl;

	app.use(requestId);
	app.use(httpLogger(logger));
	app.use(countRequests);
	// JSON needs no sources at all. Answers here are never documents, so they carry the headers
	// that matter for any response (OWASP's list for REST services, and CORP); the headers that
	// only steer a browser rendering a document (opener, referrer, prefetch, origin cluster, IE's
	// download and XSS switches) are sent by the settings pages, whose helmet sets them all.
	app.use(
		helmet({
			contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
			crossOriginOpenerPolicy: false,
			originAgentCluster: false,
			referrerPolicy: false,
			xDnsPrefetchControl: false,
			xDownloadOptions: false,
			xXssProtection: false,
			// Never set: x-powered-by is disabled above.
			xPoweredBy: false,
		}),
	);
	healthRoutes(app, deps.db, limitStore);
	// Before the limiter: a scraper's visits never use up anybody's requests.
	app.use(metricsRoute(config.metricsToken));
	app.use(createRateLimiter(config, limitStore, logger));
	// The API first: its requests are the many, and the settings router has layers to pass.
	mountApi(app, deps);
	// SCIM for identity providers: its own error format, so its own 404 and error handler.
	mountScim(app, { config, limitStore, logger });
	app.use(createSettingsRouter(deps));
	app.use(notFoundHandler);
	app.use(errorHandler);
	return app;
}
