import { ipKeyGenerator } from 'express-rate-limit';
import { Op, type Transaction } from 'sequelize';

import { RuleError } from '../common/rule-error';
import { hasControlCharacters, printable } from '../common/text';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import type { User } from '../users/model';
import { SignInAttempt } from './model';
import { LOCK_KEY } from './queries';

/**
 * SPEC §14: at most 10 failed sign-ins per account in 15 minutes, whatever the IP, and at most
 * 20 per IP (an IPv6 client is its /56 prefix, as for the request limiter: one subscriber holds a
 * whole prefix); beyond that every sign-in is refused, the right password included, until the
 * window passes. Throttle, never lock: the limit lifts by itself (OWASP's authentication cheat
 * sheet).
 *
 * The account's count alone would let anyone who knows an e-mail keep its owner out for ever,
 * one window after another. So, following OWASP's device cookies, a browser that signed in to
 * the account before (sign-in/device-cookie.ts) is not held back by the account's or the IP's
 * count: its attempts count against that device alone, at most 10 failures per window, and
 * never against the account or the IP (docs/settings.md).
 *
 * The counters are rows of `sign_in_attempts` in the database, so every instance sees them. An
 * attempt is recorded as `pending` before its password is checked, under a lock on its keys,
 * and pending ones count: concurrent guesses cannot all pass the check before any of them is
 * recorded.
 */
const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;
const MAX_FAILURES_PER_ACCOUNT = 10;
const MAX_FAILURES_PER_IP = 20;
const MAX_FAILURES_PER_DEVICE = 10;

const COUNTED = ['pending', 'failed'];

export class SignInThrottled extends RuleError {
	constructor(readonly retryAfterSeconds: number) {
		const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
		super(
			'sign_in_throttled',
			`Too many failed sign-ins. Wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`,
		);
		this.name = 'SignInThrottled';
	}
}

/**
 * The e-mail as attempted, as the throttle and the audit log key it: lower case, bounded, and
 * printable (control characters, NUL included, cannot be stored in PostgreSQL text: shown as �).
 */
export function attemptedEmail(email: string): string {
	return printable(email.trim().toLowerCase()).slice(0, 254);
}

/** Whether an attempted e-mail could belong to an account at all (worth a lookup). */
export function couldBeAccount(email: string): boolean {
	return email.length > 0 && email.length <= 254 && !hasControlCharacters(email);
}

export interface SignInOrigin {
	ip: string;
	userAgent?: string | null;
	/** The nonce of a trusted-device cookie issued for this account, already verified; else absent. */
	device?: string | null;
}

/** The key of the per-IP count: the IPv4 address, or the IPv6 /56 prefix. */
function signInClient(ip: string): string {
	return ipKeyGenerator(ip).slice(0, 64);
}

/** Serialises the counting of one key (account, IP, device) across instances (SQLite's IMMEDIATE transaction already does). */
async function lock(transaction: Transaction, keys: string[]): Promise<void> {
	const db = database();
	if (db.dialect !== 'postgres') return;
	// Always account first, then IP: a fixed order cannot deadlock.
	for (const key of keys) await db.rows(LOCK_KEY, [key], transaction);
}

/** Attempts from a trusted device count only against that device. */
type Counted = { email: string; device: null } | { client: string; device: null } | { device: string };

async function windowOf(where: Counted, since: Date, transaction: Transaction): Promise<Date[]> {
	const rows = await SignInAttempt.findAll({
		attributes: ['createdAt'],
		where: { ...where, outcome: COUNTED, createdAt: { [Op.gt]: since } },
		order: [['createdAt', 'ASC']],
		transaction,
	});
	return rows.map((r) => r.createdAt);
}

/** When the oldest of the attempts that hold the limit leaves the window, or undefined if under it. */
function freeAt(times: Date[], limit: number): number | undefined {
	return times.length >= limit ? times[times.length - limit].getTime() + SIGN_IN_WINDOW_MS : undefined;
}

/**
 * Records a sign-in attempt before the password is checked. Throws SignInThrottled (the attempt
 * is recorded as `throttled`) when the account or the IP has used up its failures; otherwise
 * returns the pending attempt, to be closed with finishSignIn.
 */
export async function beginSignIn(email: string, origin: SignInOrigin): Promise<SignInAttempt> {
	const key = attemptedEmail(email);
	const device = origin.device ?? null;
	const row = { email: key, ip: origin.ip.slice(0, 64), client: signInClient(origin.ip), device, userAgent: origin.userAgent?.slice(0, 300) ?? null };
	const result = await writeTransaction(database(), async (transaction) => {
		const now = Date.now();
		const since = new Date(now - SIGN_IN_WINDOW_MS);
		let until: number;
		if (device) {
			await lock(transaction, [`lms:sign-in:device:${device}`]);
			until = freeAt(await windowOf({ device }, since, transaction), MAX_FAILURES_PER_DEVICE) ?? 0;
		} else {
			await lock(transaction, [`lms:sign-in:account:${key}`, `lms:sign-in:ip:${row.client}`]);
			until = Math.max(
				freeAt(await windowOf({ email: key, device: null }, since, transaction), MAX_FAILURES_PER_ACCOUNT) ?? 0,
				freeAt(await windowOf({ client: row.client, device: null }, since, transaction), MAX_FAILURES_PER_IP) ?? 0,
			);
		}
		if (until > now) {
			await SignInAttempt.create({ ...row, outcome: 'throttled' }, { transaction });
			return Math.max(1, Math.ceil((until - now) / 1000));
		}
		return SignInAttempt.create({ ...row, outcome: 'pending' }, { transaction });
	});
	if (typeof result === 'number') throw new SignInThrottled(result);
	return result;
}

/** Closes an attempt: a failure keeps counting for the rest of the window, a success never did. */
export async function finishSignIn(attempt: SignInAttempt, outcome: 'failed' | 'succeeded', user: User | null): Promise<void> {
	// In a transaction of its own, so that on SQLite it queues behind beginSignIn's rather than racing it.
	await writeTransaction(database(), (transaction) =>
		attempt.update({ outcome, userId: user?.id ?? null, organizationId: user?.organizationId ?? null }, { transaction }),
	);
}
