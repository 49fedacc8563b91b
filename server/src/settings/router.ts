import express, { Router } from 'express';
import helmet from 'helmet';
import { csrfSync } from 'csrf-sync';

import type { AppDeps } from '../http/deps';
import { apiKeyPages } from './api-keys-pages';
import { webhookPages } from './webhooks-pages';
import { errorPage, notFoundPage } from './errors';
import { OneTimeKeyBox } from './one-time-key';
import { sessionMiddleware } from './session';
import { signInRoutes } from './sign-in';
import { loadViewer, requireSignIn } from './viewer';
import { ASSETS_DIR, ASSETS_PATH, createViews } from './views';

/** Everything the settings interface answers; the API and health checks never see its middleware. */
const PAGE_PATHS = ['/login', '/logout', '/settings'];

/**
 * A strict policy: our own script (the copy button) and stylesheet, nothing inline, nothing
 * from elsewhere, no framing, forms only to ourselves.
 */
const pageSecurity = helmet({
	contentSecurityPolicy: {
		useDefaults: false,
		directives: {
			defaultSrc: ["'none'"],
			scriptSrc: ["'self'"],
			styleSrc: ["'self'"],
			imgSrc: ["'self'"],
			formAction: ["'self'"],
			frameAncestors: ["'none'"],
			baseUri: ["'none'"],
		},
	},
	referrerPolicy: { policy: 'same-origin' },
});

/** The settings pages (/login, /logout, /settings, /settings/api-keys). */
export function createSettingsRouter(deps: AppDeps): Router {
	const views = createViews();
	const oneTimeKeys = new OneTimeKeyBox(deps.config.sessionSecret);
	const { csrfSynchronisedProtection } = csrfSync({
		getTokenFromRequest: (req) => {
			const token = (req.body as Record<string, unknown> | undefined)?._csrf;
			return typeof token === 'string' ? token : undefined;
		},
	});

	const router = Router();

	// Assets need no session: served before it, so a stylesheet never creates a session row.
	router.use(ASSETS_PATH, pageSecurity, express.static(ASSETS_DIR, { index: false, maxAge: '1h' }));

	router.use(
		PAGE_PATHS,
		pageSecurity,
		(_req, res, next) => {
			// Pages carry personal data and CSRF tokens: no cache, shared or private, keeps them.
			res.setHeader('Cache-Control', 'no-store');
			next();
		},
		express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 50 }),
		sessionMiddleware(deps.sequelize, deps.config.sessionSecret),
		csrfSynchronisedProtection,
		loadViewer,
	);

	router.use(signInRoutes(views));
	router.get('/settings', requireSignIn, (req, res) => views.render(req, res, 'settings.njk'));
	router.use(apiKeyPages(views, oneTimeKeys));
	router.use(webhookPages(views));

	router.use(PAGE_PATHS, notFoundPage(views));
	router.use(PAGE_PATHS, errorPage(views, deps.logger));
	return router;
}
