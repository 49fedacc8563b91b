import { createHash, randomBytes } from 'node:crypto';

import { writeAudit, type Actor, type Origin } from '../api-keys/audit';
import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { User } from './model';
import { CLAIM_RESET_LINK, INSERT_RESET_LINK, OPEN_RESET_LINK } from './password-queries';
import { checkNewPassword } from './password-rule';
import { checkCanHoldPassword, setPassword } from './set-password';

export const RESET_LINK_MINUTES = 60;
/** Where a link leads: the page that asks for the new password (settings/password-pages.ts). */
export const RESET_PATH = '/login/reset';
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Only the digest is stored: a copy of the database opens no account. */
const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

const LINK_USED = 'This reset link has expired or was already used. Ask the operator for a new one (lms-server users reset-link).';

/**
 * A one-time link for the operator to hand to someone who lost their password: valid
 * RESET_LINK_MINUTES, for one use; audited. Returns the token, the only copy there is.
 */
export async function createResetLink(user: User, actor: Actor, origin: Origin): Promise<{ token: string; expiresAt: Date }> {
	checkCanHoldPassword(user);
	const token = randomBytes(32).toString('base64url');
	const now = new Date();
	const expiresAt = new Date(now.getTime() + RESET_LINK_MINUTES * 60_000);
	const db = database();
	await writeTransaction(db, async (transaction) => {
		await db.run(INSERT_RESET_LINK(db), [digest(token), user.id, user.organizationId, expiresAt.toISOString(), now.toISOString()], transaction);
		await writeAudit({ organizationId: user.organizationId, action: 'password.link', apiKeyId: '', userId: user.id }, actor, origin, transaction);
	});
	return { token, expiresAt };
}

/** The account a link still opens, or undefined (unknown, used, expired): what the page shows before the form. */
export async function resetLinkAccount(token: string): Promise<User | undefined> {
	if (!TOKEN_SHAPE.test(token)) return undefined;
	const [row] = await database().rows<{ user_id: string }>(OPEN_RESET_LINK(database()), [digest(token), new Date().toISOString()]);
	const user = row ? await User.findByPk(row.user_id) : null;
	return user && user.status === 'active' ? user : undefined;
}

/**
 * Sets the password a link was made for and uses the link up, in one transaction: of two
 * submissions racing with one link, one sets the password and the other is refused.
 * A refused password (too short) leaves the link open to try again.
 */
export async function redeemResetLink(token: string, password: string, origin: Origin): Promise<User> {
	const user = await resetLinkAccount(token);
	if (!user) throw new RuleError('reset_link_used', LINK_USED);
	checkNewPassword(password);
	const db = database();
	await setPassword(user, password, {
		action: 'password.reset',
		actor: { kind: 'user', id: user.id, name: user.email },
		origin,
		claim: async (transaction) => {
			const claimed = await db.rows<{ user_id: string }>(CLAIM_RESET_LINK(db), [digest(token), new Date().toISOString()], transaction);
			if (claimed.length !== 1) throw new RuleError('reset_link_used', LINK_USED);
		},
	});
	return user;
}
