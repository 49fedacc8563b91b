import type { NextFunction, Request, Response } from 'express';

import { cookieValues } from './session';
import { safeNext } from './viewer';

/**
 * A form sent after the session ended (issue 42): its CSRF token died with the session, so it is
 * refused and nothing changes. Rather than a dead end that loses what was typed, the browser is
 * sent to sign in and then back to the form's page, which shows the form again as it was sent,
 * with what to do next. The session is gone, so what was typed waits in a short-lived cookie of
 * its own; passwords, secrets and tokens are never kept. It only fills a form the person still
 * has to send, and only a same-origin POST can leave one (a cross-site form cannot pre-fill ours).
 */
const DRAFT_COOKIE = 'lms.draft';
const DRAFT_MINUTES = 60;
/** A cookie stays well under browsers' 4 KB; a bigger form is not kept (the page says what to redo). */
const MAX_DRAFT_BYTES = 3000;
const SECRET_FIELD = /password|secret|token|csrf/i;

/** Pages whose form the draft refills: the form posts to the page it is on. */
const FORM_PAGES = [/^\/settings\/api-keys$/, /^\/settings\/webhooks$/, /^\/settings\/webhooks\/[A-Za-z0-9_-]+\/edit$/, /^\/settings\/password$/];

const DRAFT_RESTORED = 'Your session had ended, so this form was not sent and nothing changed. What you typed is back (passwords are never kept): check it and send it again.';

type Values = Record<string, string | string[]>;

function cookieOptions(req: Request) {
	return { path: '/settings', httpOnly: true, sameSite: 'lax' as const, secure: req.secure };
}

function sameOrigin(req: Request): boolean {
	const origin = req.get('origin');
	if (!origin) return req.get('sec-fetch-site') === 'same-origin';
	try {
		return new URL(origin).host === req.get('host');
	} catch {
		return false;
	}
}

/** The page to come back to after signing in: the form's own page, or the page the action was on. */
function pageOf(path: string): string {
	if (FORM_PAGES.some((page) => page.test(path))) return path;
	if (path.startsWith('/settings/api-keys/')) return '/settings/api-keys';
	return safeNext(path.replace(/\/[A-Za-z0-9_-]+$/, ''));
}

function keptValues(body: unknown): Values {
	const values: Values = {};
	for (const [name, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
		if (SECRET_FIELD.test(name)) continue;
		if (typeof value === 'string') values[name] = value;
		else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) values[name] = value;
	}
	return values;
}

/**
 * For the settings error page: a form refused for an expired session, by someone no longer signed
 * in, goes to sign-in and back (true); anything else is left to the error page (false).
 */
export function signInAgain(req: Request, res: Response): boolean {
	const path = req.originalUrl.split('?')[0];
	if (req.method !== 'POST' || res.locals.viewer || safeNext(path) !== path || path === '/settings' || !sameOrigin(req)) return false;
	const page = pageOf(path);
	let kept = false;
	if (page === path) {
		const draft = Buffer.from(JSON.stringify({ path, values: keptValues(req.body) })).toString('base64url');
		if (draft.length <= MAX_DRAFT_BYTES) {
			res.cookie(DRAFT_COOKIE, draft, { ...cookieOptions(req), maxAge: DRAFT_MINUTES * 60 * 1000 });
			kept = true;
		}
	}
	res.redirect(303, `/login?next=${encodeURIComponent(page)}&expired=${kept ? 'form' : 'action'}`);
	return true;
}

function readDraft(raw: string | undefined): { path: string; values: Values } | undefined {
	if (!raw || raw.length > MAX_DRAFT_BYTES) return undefined;
	try {
		const draft = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { path?: unknown; values?: unknown };
		if (typeof draft.path !== 'string' || typeof draft.values !== 'object' || draft.values === null) return undefined;
		return { path: draft.path, values: keptValues(draft.values) };
	} catch {
		return undefined;
	}
}

/** After signing in, the form's page takes its draft back (once) as a refused form (session.ts). */
export function restoreDraft(req: Request, res: Response, next: NextFunction): void {
	const raw = cookieValues(req, DRAFT_COOKIE)[0];
	if (!raw || req.method !== 'GET' || !res.locals.viewer) return next();
	const draft = readDraft(raw);
	const path = req.originalUrl.split('?')[0];
	if (draft && draft.path !== path) return next();
	res.clearCookie(DRAFT_COOKIE, cookieOptions(req));
	if (draft) req.session.refused = { path, error: DRAFT_RESTORED, values: draft.values };
	next();
}
