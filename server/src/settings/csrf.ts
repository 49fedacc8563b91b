import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';

import { cookieValues } from './session';

/**
 * CSRF protection for every settings form, without a session row per anonymous visitor.
 *
 * A signed-in person's token lives in their session (a synchroniser token). Someone who has not
 * signed in yet has no session, and must not get one just for looking at the sign-in form
 * (SPEC §14: anonymous page views create no session row), so the sign-in form's token lives in
 * a cookie of its own, scoped to /login, and the form echoes it back (a double-submit cookie).
 * A forged cross-site POST carries the cookie but cannot read it to put it in the form.
 */
const CSRF_COOKIE = 'lms.csrf';
const COOKIE_PATH = '/login';
const TOKEN_BYTES = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'express-session' {
	interface SessionData {
		/** The signed-in person's CSRF token, made when a page with a form first needs it. */
		csrfToken: string;
	}
}

declare global {
	// eslint-disable-next-line @typescript-eslint/no-namespace
	namespace Express {
		interface Request {
			/** The token for this request's forms; creates one only when a page asks for it. */
			csrfToken?: () => string;
		}
	}
}

/** What the error page recognises: "This form has expired". */
class CsrfError extends Error {
	readonly code = 'EBADCSRFTOKEN';
	readonly status = 403;
	constructor() {
		super('invalid csrf token');
		this.name = 'CsrfError';
	}
}

const newToken = () => randomBytes(TOKEN_BYTES).toString('base64url');

function signedIn(req: Request): boolean {
	return typeof req.session?.userId === 'string';
}

function cookieToken(req: Request): string | undefined {
	return cookieValues(req, CSRF_COOKIE).find((value) => TOKEN_SHAPE.test(value));
}

function cookieOptions(req: Request) {
	// Secure whenever the request came over HTTPS (req.secure honours TRUST_PROXY), like the session cookie.
	return { path: COOKIE_PATH, httpOnly: true, sameSite: 'lax' as const, secure: req.secure };
}

/** The token the server expects back: from the session when signed in, else from the cookie. */
function expectedToken(req: Request): string | undefined {
	return signedIn(req) ? req.session.csrfToken : cookieToken(req);
}

/** Equal-length buffers compared in constant time: the answer's timing says nothing about the token. */
function sameToken(received: unknown, expected: string | undefined): boolean {
	if (typeof received !== 'string' || !expected) return false;
	const a = Buffer.from(received, 'utf8');
	const b = Buffer.from(expected, 'utf8');
	return a.length === b.length && timingSafeEqual(a, b);
}

/** Forgets the sign-in form's token (after a successful sign-in, the session holds the next one). */
export function clearSignInToken(req: Request, res: Response): void {
	if (cookieToken(req)) res.clearCookie(CSRF_COOKIE, cookieOptions(req));
}

/** Checks every state-changing request's `_csrf` field, and offers `req.csrfToken()` to the pages. */
export const csrfProtection: RequestHandler = (req, res, next) => {
	req.csrfToken = () => {
		const existing = expectedToken(req);
		if (existing) return existing;
		const token = newToken();
		if (signedIn(req)) req.session.csrfToken = token;
		else res.cookie(CSRF_COOKIE, token, cookieOptions(req));
		return token;
	};
	if (SAFE_METHODS.has(req.method)) return next();
	const received = (req.body as Record<string, unknown> | undefined)?._csrf;
	return sameToken(received, expectedToken(req)) ? next() : next(new CsrfError());
};
