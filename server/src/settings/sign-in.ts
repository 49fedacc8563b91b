import { Router, type Request } from 'express';

import { User } from '../users/model';
import { verifyPassword } from '../users/password';
import { redirectAfterSave, SESSION_COOKIE } from './session';
import { safeNext } from './viewer';
import type { Views } from './views';

/** The same words whether the email is unknown or the password wrong. */
export const SIGN_IN_FAILED = 'Email or password is incorrect.';

function field(req: Request, name: string): string {
	const value = (req.body as Record<string, unknown> | undefined)?.[name];
	return typeof value === 'string' ? value : '';
}

function regenerate(req: Request): Promise<void> {
	return new Promise((resolve, reject) => req.session.regenerate((err) => (err ? reject(err) : resolve())));
}

function destroy(req: Request): Promise<void> {
	return new Promise((resolve, reject) => req.session.destroy((err) => (err ? reject(err) : resolve())));
}

/** /login and /logout. */
export function signInRoutes(views: Views): Router {
	const router = Router();

	router.get('/login', (req, res) => {
		if (res.locals.viewer) return res.redirect(303, safeNext(req.query.next));
		return views.render(req, res, 'login.njk', { next: safeNext(req.query.next), email: '' });
	});

	router.post('/login', async (req, res) => {
		const email = field(req, 'email').trim();
		const password = field(req, 'password');
		const next = safeNext(field(req, 'next'));
		const user = email ? await User.findOne({ where: { emailLower: email.toLowerCase() } }) : null;
		// verifyPassword spends the same time when there is no user or no password hash, so the
		// answer's timing does not tell which emails have accounts either.
		const valid = await verifyPassword(password, user?.passwordHash ?? null);
		if (!user || !valid) {
			return views.render(req, res, 'login.njk', { next, email, error: SIGN_IN_FAILED }, 401);
		}
		// A new session id at sign-in, so a session id planted before it is worth nothing after.
		await regenerate(req);
		req.session.userId = user.id;
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
