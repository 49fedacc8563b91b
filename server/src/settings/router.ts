import express, { Router, type RequestHandler } from 'express';
import helmet from 'helmet';

import { superAdminsOf } from '../users/super-admins';
import type { AppDeps } from '../http/deps';
import { publicOrigin } from '../http/public-url';
import { apiKeyPages } from './api-keys/routes';
import { csrfProtection } from './csrf';
import { restoreDraft } from './drafts';
import { pageRouter, type PageDeps } from './pages';
import { webhookPages } from './webhooks/routes';
import { compliancePages } from './compliance-pages';
import { passwordPages } from './password-pages';
import { errorPage, notFoundPage } from './errors';
import { OneTimeKeyBox } from './one-time-key';
import { sessionMiddleware } from './session';
import { DeviceCookies } from '../sign-in/device-cookie';
import { signInRoutes } from './sign-in';
import { loadViewer, requireSignIn } from './viewer';
import { ASSETS_DIR, ASSETS_PATH, createViews } from './views';

/** Everything the settings interface answers; the API and health checks never see its middleware. */
const PAGE_PATHS = ['/login', '/logout', '/settings'];

/** Where a person reads how to connect n8n and what each scope allows. */
const DOCS_URL = 'https://github.com/n8n-nodes-lms/n8n-nodes-lms#readme';

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

/**
 * NUL bytes have no place in a page address, and PostgreSQL refuses them in text: a `%00` in the
 * path or query is answered with a 400 page rather than reaching a query. Form fields are each
 * checked by the rule they feed (a label with control characters is refused with the form, a NUL
 * in the sign-in form is a failed sign-in, a wrong CSRF token a 403).
 */
const refuseNulBytes: RequestHandler = (req, _res, next) => {
	if (/%00/i.test(req.originalUrl)) {
		return next(Object.assign(new Error('NUL byte in the address'), { status: 400, expose: true }));
	}
	next();
};

/** The settings pages (/login, /login/reset, /logout, /settings and the pages under it). */
export function createSettingsRouter(deps: AppDeps): Router {
	const views = createViews();
	const pageDeps: PageDeps = { views, oneTimeKeys: new OneTimeKeyBox(deps.config.sessionSecret), webhooks: deps.config.webhooks };

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
		refuseNulBytes,
		sessionMiddleware(deps.db, deps.config.sessionSecret),
		csrfProtection,
		loadViewer,
	);

	router.use(signInRoutes(views, new DeviceCookies(deps.config.sessionSecret)));
	router.use(PAGE_PATHS, restoreDraft);
	// The server's address in a browser leads to the pages, not to a JSON 404.
	router.get('/', (_req, res) => res.redirect(302, '/settings'));
	router.get('/settings', requireSignIn, async (req, res) => {
		const viewer = res.locals.viewer!;
		await views.render(req, res, 'settings.njk', {
			// What the n8n credential's Base URL field needs: this server as the browser reached it.
			apiBaseUrl: publicOrigin(req),
			docsUrl: DOCS_URL,
			superAdmins: viewer.isSuperAdmin ? [] : await superAdminsOf(viewer.organization.id),
		});
	});
	router.use(pageRouter(apiKeyPages, pageDeps));
	router.use(pageRouter(webhookPages, pageDeps));
	router.use(compliancePages(views));
	router.use(passwordPages(views));

	router.use(PAGE_PATHS, notFoundPage(views));
	router.use(PAGE_PATHS, errorPage(views, deps.logger));
	return router;
}
