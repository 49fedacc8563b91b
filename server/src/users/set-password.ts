import type { Transaction } from 'sequelize';

import { writeAudit, type Actor, type Origin } from '../api-keys/audit';
import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { User } from './model';
import { hashPassword, verifyPassword } from './password';
import { END_OTHER_SESSIONS, SET_PASSWORD_HASH, VOID_RESET_LINKS } from './password-queries';
import { checkNewPassword } from './password-rule';
import { needsPassword } from './service';

export type PasswordAction = 'password.changed' | 'password.set' | 'password.reset';

/** Only the roles that sign in to the settings pages hold a password. */
export function checkCanHoldPassword(user: User): void {
	if (!needsPassword(user.role)) {
		throw new RuleError('role_not_allowed', `${user.email} is ${user.role === 'instructor' ? 'an' : 'a'} ${user.role}: only admins and super admins sign in, so only they have a password.`);
	}
	if (user.status !== 'active') {
		throw new RuleError('user_deactivated', `${user.email} is deactivated: reactivate them first (lms-server users reactivate ${user.id}).`);
	}
}

/**
 * Gives a user a new password, the one way every door does it (Settings → Change password, the
 * operator's `users set-password`, a reset link): the strength rule, then in one transaction the
 * new hash, every reset link still open voided, every session of theirs ended but `keepSession`
 * (the browser that changed it), and an audit entry. `claim` runs first in that transaction
 * (a reset link used up) and may refuse.
 */
export async function setPassword(
	user: User,
	password: string,
	how: { action: PasswordAction; actor: Actor; origin: Origin; keepSession?: string; claim?: (transaction: Transaction) => Promise<void> },
): Promise<void> {
	checkCanHoldPassword(user);
	checkNewPassword(password);
	// Hashed before the transaction opens: scrypt is slow, and a SQLite write lock must not wait on it.
	const passwordHash = await hashPassword(password);
	const db = database();
	await writeTransaction(db, async (transaction) => {
		await how.claim?.(transaction);
		await db.run(SET_PASSWORD_HASH, [user.id, passwordHash], transaction);
		await db.run(VOID_RESET_LINKS(db), [user.id, new Date().toISOString()], transaction);
		// Sessions hold `"userId":"usr_…"` in their JSON text; ids hold no LIKE wildcards.
		await db.run(END_OTHER_SESSIONS, [`%"userId":"${user.id}"%`, how.keepSession ?? ''], transaction);
		await writeAudit({ organizationId: user.organizationId, action: how.action, apiKeyId: '', userId: user.id }, how.actor, how.origin, transaction);
	});
	user.passwordHash = passwordHash;
}

/** Settings → Change password: the current password first, then as setPassword. */
export async function changeOwnPassword(
	user: User,
	current: string,
	next: string,
	how: { actor: Actor; origin: Origin; keepSession: string },
): Promise<void> {
	// The same check as sign-in, NUL included (sign-in/… and users/password.ts).
	if (!(await verifyPassword(current, user.passwordHash)) || current.includes('\0')) {
		throw new RuleError('wrong_password', 'The current password is not right. Nothing was changed.');
	}
	if (next === current) throw new RuleError('weak_password', 'Choose a new password that differs from the current one.');
	await setPassword(user, next, { action: 'password.changed', ...how });
}

/** The operator's account to act on: the admin or super admin with this e-mail (in `org`, when e-mails repeat across organizations). */
export async function findAccount(email: string, organizationId?: string): Promise<User> {
	const found = await User.findAll({ where: { emailLower: email.trim().toLowerCase(), ...(organizationId ? { organizationId } : {}) }, limit: 10 });
	const accounts = found.filter((u) => needsPassword(u.role));
	if (accounts.length === 1) return accounts[0];
	if (accounts.length > 1) {
		throw new RuleError('ambiguous_email', `${accounts.length} admins share the e-mail ${email} across organizations: name one with --org.`);
	}
	if (found.length > 0) checkCanHoldPassword(found[0]);
	throw new RuleError('not_found', `No admin or super admin has the e-mail ${email}${organizationId ? ' in that organization' : ''}.`, { what: 'user' });
}
