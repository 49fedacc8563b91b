import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * OWASP's device cookies ("Slow Down Online Guessing Attacks with Device Cookies"): a browser
 * that signed in to an account gets a cookie that proves it did, and the throttle then counts
 * its failures apart from the account's (sign-in/throttle.ts). Whoever knows an e-mail can hold
 * back every other browser, never the owner's.
 *
 * The value is `<nonce>.<mac>`: the nonce names the device (what its failures are counted by),
 * the MAC binds it to the account, so the cookie carries no e-mail, helps no other account and
 * cannot be made without the server's secret (derived from SESSION_SECRET).
 */
export const DEVICE_COOKIE = 'lms.device';
/** How long a browser stays trusted without signing in again. */
export const DEVICE_COOKIE_DAYS = 180;

const SHAPE = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export class DeviceCookies {
	private readonly key: Buffer;

	constructor(sessionSecret: string) {
		this.key = Buffer.from(hkdfSync('sha256', sessionSecret, Buffer.alloc(0), 'lms sign-in: device cookie', 32));
	}

	private mac(email: string, nonce: string): string {
		return createHmac('sha256', this.key).update(`${email}\n${nonce}`).digest('base64url');
	}

	/** A new cookie value for a browser that just signed in to the account with this (attempted, normalised) e-mail. */
	issue(email: string): string {
		const nonce = randomBytes(16).toString('base64url');
		return `${nonce}.${this.mac(email, nonce)}`;
	}

	/** The device's nonce when the value is a cookie this server issued for this account; otherwise null. */
	verify(value: string | undefined, email: string): string | null {
		const match = SHAPE.exec(value ?? '');
		if (!match) return null;
		const expected = Buffer.from(this.mac(email, match[1]));
		const received = Buffer.from(match[2]);
		return expected.length === received.length && timingSafeEqual(expected, received) ? match[1] : null;
	}
}
