import { Router, type Request, type Response } from 'express';

import { RuleError } from '../common/rule-error';
import { originOf } from '../http/auth';
import { MIN_PASSWORD_LENGTH } from '../users/password-rule';
import { RESET_PATH, redeemResetLink, resetLinkAccount } from '../users/reset-links';
import { changeOwnPassword } from '../users/set-password';
import { backToForm, redirectAfterSave } from './session';
import { requireSignIn, textField, viewerOf } from './viewer';
import type { Views } from './views';

const CHANGE = '/settings/password';

/** The reset form's refusals, by code in its address: the person has no session to carry them. */
const RESET_ERRORS: Record<string, string> = {
	weak_password: `The password must be at least ${MIN_PASSWORD_LENGTH} characters.`,
	mismatch: 'The two passwords differ. Type the new password twice.',
};

/**
 * Passwords on the pages (SPEC §22): Settings → Change password for the signed-in person, and the
 * page an operator's reset link (lms-server users reset-link) opens. Both post, then redirect.
 */
export function passwordPages(views: Views): Router {
	const router = Router();

	router.get(CHANGE, requireSignIn, (req, res) => views.render(req, res, 'password.njk', { minLength: MIN_PASSWORD_LENGTH }));

	router.post(CHANGE, requireSignIn, async (req, res) => {
		const { user } = viewerOf(res);
		const current = textField(req, 'current_password');
		const next = textField(req, 'new_password');
		if (next !== textField(req, 'repeat_password')) return backToForm(req, res, CHANGE, RESET_ERRORS.mismatch);
		try {
			await changeOwnPassword(user, current, next, {
				actor: { kind: 'user', id: user.id, name: user.email },
				origin: originOf(req),
				keepSession: req.sessionID,
			});
		} catch (err) {
			if (err instanceof RuleError) return backToForm(req, res, CHANGE, err.message);
			throw err;
		}
		req.session.notice = { kind: 'success', text: 'Password changed. Every other session of yours has been signed out.' };
		await redirectAfterSave(req, res, '/settings');
	});

	const resetPage = async (req: Request, res: Response) => {
		const token = String(req.params.token);
		const user = await resetLinkAccount(token);
		if (!user) return views.render(req, res, 'reset-password.njk', { used: true }, 410);
		const code = typeof req.query.error === 'string' ? req.query.error : '';
		const error = Object.hasOwn(RESET_ERRORS, code) ? RESET_ERRORS[code] : undefined;
		return views.render(req, res, 'reset-password.njk', { email: user.email, token, error, minLength: MIN_PASSWORD_LENGTH });
	};
	router.get(`${RESET_PATH}/:token`, resetPage);

	router.post(`${RESET_PATH}/:token`, async (req, res) => {
		const token = String(req.params.token);
		const back = (code: string) => res.redirect(303, `${RESET_PATH}/${encodeURIComponent(token)}?error=${code}`);
		const password = textField(req, 'new_password');
		if (password !== textField(req, 'repeat_password')) return back('mismatch');
		try {
			await redeemResetLink(token, password, originOf(req));
		} catch (err) {
			if (!(err instanceof RuleError)) throw err;
			// A used or expired link: its page says so (410); a refused password: the form again.
			return err.code === 'weak_password' ? back('weak_password') : res.redirect(303, `${RESET_PATH}/${encodeURIComponent(token)}`);
		}
		res.redirect(303, '/login?reset=done');
	});

	return router;
}
