import { Router, type Request, type Response } from 'express';
import { Op } from 'sequelize';

import { printable } from '../common/text';
import { throttled } from '../metrics/registry';
import { DEVICE_COOKIE, DEVICE_COOKIE_DAYS, type DeviceCookies } from '../sign-in/device-cookie';
import { attemptedEmail, beginSignIn, couldBeAccount, finishSignIn, SignInThrottled } from '../sign-in/throttle';
import { User } from '../users/model';
import { hashPassword, needsRehash, verifyPassword } from '../users/password';
import { clearSignInToken } from './csrf';
import { cookieValues, redirectAfterSave, SESSION_COOKIE } from './session';
import { safeNext, textField } from './viewer';
import type { Views } from './views';

/** The same words whether the email is unknown or the password wrong. */
const SIGN_IN_FAILED = 'Email or password is incorrect.';

/**
 * A refused sign-in is post/redirect/get like every other form: the browser is sent back to
 * `/login`, whose page says why and shows the e-mail again, once, so Back and Reload never resend
 * a password. Anonymous visits keep no session row (SPEC §14), and an e-mail has no place in an
 * address (logs, history), so the refusal and the e-mail typed wait in a cookie of their own for
 * the next page, which uses it up. The password is never kept.
 */
const REFUSED_COOKIE = 'lms.sign-in-refused';
const REFUSED_MINUTES = 10;
/** An e-mail is at most 254 characters; the cookie holds one, and nothing bigger is read. */
const MAX_REFUSED_BYTES = 1400;

function refusedCookie(req: Request) {
	return { path: '/login', httpOnly: true, sameSite: 'lax' as const, secure: req.secure };
}

/** The sign-in refused just before, once (the cookie is cleared as it is read): the e-mail typed, or undefined. */
function takeRefusal(req: Request, res: Response): { email: string } | undefined {
	const raw = cookieValues(req, REFUSED_COOKIE)[0];
	if (raw === undefined) return undefined;
	res.clearCookie(REFUSED_COOKIE, refusedCookie(req));
	if (raw.length > MAX_REFUSED_BYTES) return undefined;
	try {
		const { email } = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { email?: unknown };
		return { email: typeof email === 'string' ? printable(email) : '' };
	} catch {
		return undefined;
	}
}

function regenerate(req: Request): Promise<void> {
	return new Promise((resolve, reject) => req.session.regenerate((err?: Error) => (err ? reject(err) : resolve())));
}

function destroy(req: Request): Promise<void> {
	return new Promise((resolve, reject) => req.session.destroy((err?: Error) => (err ? reject(err) : resolve())));
}

/** /login and /logout. */
/** Why the sign-in page came up in the middle of a form (drafts.ts), in the person's terms. */
function expiredNotice(value: unknown): string | undefined {
	if (value === 'form') return 'Your session ended before the form was sent, so nothing changed. Sign in: the form comes back with what you typed (passwords are never kept).';
	if (value === 'action') return 'Your session ended, so that was not done and nothing changed. Sign in, then do it again on the page you come back to.';
	return undefined;
}

export function signInRoutes(views: Views, devices: DeviceCookies): Router {
	const router = Router();

	router.get('/login', (req, res) => {
		if (res.locals.viewer) return res.redirect(303, safeNext(req.query.next));
		const refused = takeRefusal(req, res);
		return views.render(req, res, 'login.njk', {
			next: safeNext(req.query.next),
			email: refused?.email ?? '',
			passwordReset: req.query.reset === 'done',
			expired: expiredNotice(req.query.expired),
			error: refused ? SIGN_IN_FAILED : undefined,
		});
	});

	router.post('/login', async (req, res) => {
		const email = textField(req, 'email').trim();
		const password = textField(req, 'password');
		const next = safeNext(textField(req, 'next'));
		// The form comes back with what was typed, minus what no e-mail address contains.
		const shownEmail = printable(email);
		let attempt;
		try {
			// A browser that signed in to this account before is counted apart (sign-in/throttle.ts).
			const device = devices.verify(cookieValues(req, DEVICE_COOKIE)[0], attemptedEmail(email));
			attempt = await beginSignIn(email, { ip: req.ip ?? 'unknown', userAgent: req.get('user-agent'), device });
		} catch (err) {
			if (!(err instanceof SignInThrottled)) throw err;
			throttled.inc({ limit: 'sign_in' });
			res.setHeader('Retry-After', String(err.retryAfterSeconds));
			// Answered here, not redirected: SPEC §14 has the sign-in page answer 429 with Retry-After.
			return views.render(req, res, 'login.njk', { next, email: shownEmail, error: err.message }, 429);
		}
		// Only accounts with a password can sign in, and among them an e-mail is unique across
		// organizations (migration 0013); other users may share it in other organizations.
		const user = couldBeAccount(email)
			? await User.findOne({ where: { emailLower: email.toLowerCase(), passwordHash: { [Op.ne]: null } } })
			: null;
		// verifyPassword spends the same time when there is no user or no password hash, so the
		// answer's timing does not tell which emails have accounts either.
		// No password holds a NUL byte; and scrypt's HMAC pads its key with zeros, so "pw\0" would
		// otherwise pass for "pw".
		// A deactivated user (SPEC §16) is refused in the same words, after the same work.
		const valid = (await verifyPassword(password, user?.passwordHash ?? null)) && !password.includes('\0') && user?.status === 'active';
		if (!user || !valid) {
			await finishSignIn(attempt, 'failed', user);
			res.cookie(REFUSED_COOKIE, Buffer.from(JSON.stringify({ email: shownEmail.slice(0, 320) })).toString('base64url'), {
				...refusedCookie(req),
				maxAge: REFUSED_MINUTES * 60 * 1000,
			});
			return res.redirect(303, next === '/settings' ? '/login' : `/login?next=${encodeURIComponent(next)}`);
		}
		await finishSignIn(attempt, 'succeeded', user);
		// The password is known right now and only now: the moment to bring an old hash up to today's cost.
		if (needsRehash(user.passwordHash)) await user.update({ passwordHash: await hashPassword(password) });
		// A new session id at sign-in, so a session id planted before it is worth nothing after.
		await regenerate(req);
		req.session.userId = user.id;
		clearSignInToken(req, res);
		res.clearCookie(REFUSED_COOKIE, refusedCookie(req));
		// This browser is now trusted for this account; it keeps the cookie after signing out.
		res.cookie(DEVICE_COOKIE, devices.issue(attemptedEmail(email)), {
			path: '/login',
			httpOnly: true,
			sameSite: 'lax',
			secure: req.secure,
			maxAge: DEVICE_COOKIE_DAYS * 24 * 60 * 60 * 1000,
		});
		await redirectAfterSave(req, res, next);
	});

	router.get('/logout', (req, res) => {
		if (!res.locals.viewer) return res.redirect(303, '/login');
		return views.render(req, res, 'logout.njk');
	});

	router.post('/logout', async (req, res) => {
		await destroy(req);
		res.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax' });
		res.redirect(303, '/login');
	});

	return router;
}
