import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';

import { signInAgain } from './drafts';
import type { Views } from './views';

interface HttpishError {
	status?: number;
	statusCode?: number;
	expose?: boolean;
	code?: string;
	headers?: Record<string, string>;
}

export function notFoundPage(views: Views): RequestHandler {
	return (req, res) => views.render(req, res, 'not-found.njk', {}, 404);
}

/**
 * Errors on the settings pages are pages, not problem+json: a person reads them. A refused
 * CSRF token gets its own explanation; anything unexpected is logged with the request id and
 * shown as a plain apology that leaks nothing.
 */
export function errorPage(views: Views, logger: Logger): ErrorRequestHandler {
	return async (err: unknown, req, res, next) => {
		if (res.headersSent) return next(err);
		const e = (err ?? {}) as HttpishError;
		const status = e.status ?? e.statusCode ?? 500;
		if (e.code === 'EBADCSRFTOKEN') {
			// The session ended under an open form: sign in and back to it, with what was typed (drafts.ts).
			if (signInAgain(req, res)) return;
			return views.render(req, res, 'error.njk', { title: 'This form has expired', reason: 'csrf' }, 403);
		}
		if (status >= 400 && status < 500) {
			for (const [name, value] of Object.entries(e.headers ?? {})) res.setHeader(name, value);
			return views.render(req, res, 'error.njk', { title: status === 429 ? 'Too many requests' : 'Request not accepted', reason: String(status) }, status);
		}
		const requestId = res.getHeader('x-request-id');
		logger.error({ err, requestId, path: req.path }, 'settings page failed');
		try {
			await views.render(req, res, 'error.njk', { title: 'Something went wrong', reason: 'internal', requestId }, 500);
		} catch {
			if (!res.headersSent) res.status(500).type('html').send('<!doctype html><title>Error</title><p>Something went wrong. Try again.</p>');
		}
	};
}
