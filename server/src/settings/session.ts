import connectSessionSequelize from 'connect-session-sequelize';
import session from 'express-session';
import type { Request, RequestHandler, Response } from 'express';

import type { Database } from '../db';

export const SESSION_COOKIE = 'lms.sid';
const SESSION_HOURS = 8;

interface Notice {
	kind: 'success' | 'error';
	text: string;
}

/** What a refused form's page shows after the redirect: the reason, and what was typed (never a password). */
export interface RefusedForm {
	path: string;
	error: string;
	values: Record<string, string | string[]>;
}

declare module 'express-session' {
	interface SessionData {
		/** Set only by a successful sign-in, on a freshly regenerated session. */
		userId: string;
		/** The `one_time_keys` row of a key just created or rotated, until the next page shows it once. */
		oneTimeKey: string;
		/** A message for the next page, e.g. "Key revoked". */
		notice: Notice;
		/** A refused form, for the page it came from to show again after the redirect (post/redirect/get). */
		refused: RefusedForm;
	}
}

/** What the request's Cookie header gives `name`, in order: a browser sends a name twice when two paths set it. */
export function cookieValues(req: Request, name: string): string[] {
	return (req.headers.cookie ?? '').split(';').flatMap((part) => {
		const at = part.indexOf('=');
		return at > 0 && part.slice(0, at).trim() === name ? [part.slice(at + 1).trim()] : [];
	});
}

/**
 * Sessions live in the `sessions` table (migration 0002) through connect-session-sequelize;
 * the table is created by migrations, so the store's own sync() is never called.
 *
 * The cookie is HttpOnly, SameSite=Lax, and Secure whenever the request came over HTTPS:
 * `secure: 'auto'` reads `req.secure`, which honours the app's `trust proxy` (TRUST_PROXY),
 * so an HTTPS-terminating proxy gets a Secure cookie and plain-HTTP development still works.
 */
export function sessionMiddleware(db: Database, secret: string): RequestHandler {
	const SequelizeStore = connectSessionSequelize(session.Store);
	const store = new SequelizeStore({ db: db.sequelize, tableName: 'sessions', modelKey: 'Session' });
	return session({
		name: SESSION_COOKIE,
		secret,
		store,
		resave: false,
		saveUninitialized: false,
		unset: 'destroy',
		cookie: {
			httpOnly: true,
			sameSite: 'lax',
			secure: 'auto',
			path: '/',
			maxAge: SESSION_HOURS * 60 * 60 * 1000,
		},
	});
}

/**
 * Writes the session now. express-session would otherwise save it while the response is
 * already on its way, and a browser that follows a redirect as soon as it sees the headers
 * can load the next page from the session as it was before.
 */
export function saveSession(req: Request): Promise<void> {
	return new Promise((resolve, reject) => req.session.save((err?: Error) => (err ? reject(err) : resolve())));
}

/** Saves the session, then redirects with 303 (a POST's result is fetched with GET). */
export async function redirectAfterSave(req: Request, res: Response, location: string): Promise<void> {
	await saveSession(req);
	res.redirect(303, location);
}

/** The refused form waiting for `path`'s page, left in the session for views.render to use up. */
export function refusedFor(req: Request, path: string): RefusedForm | undefined {
	const refused = req.session?.refused;
	return refused?.path === path ? refused : undefined;
}

/** A refused form's field as text, and as a list (checkboxes). */
export const refusedText = (form: RefusedForm, name: string): string => {
	const value = form.values[name];
	return typeof value === 'string' ? value : '';
};
export const refusedList = (form: RefusedForm, name: string): string[] => {
	const value = form.values[name];
	return Array.isArray(value) ? value : typeof value === 'string' && value !== '' ? [value] : [];
};

/**
 * Post/redirect/get for a refused form: the reason and what was typed go into the session, and
 * the browser is sent back (303) to the form's page, which shows them once (views.render). Back
 * and Reload then never offer to resend the POST.
 */
export async function backToForm(req: Request, res: Response, path: string, error: string, values: RefusedForm['values'] = {}): Promise<void> {
	req.session.refused = { path, error, values };
	await redirectAfterSave(req, res, path);
}
