import { createHmac } from 'node:crypto';

/**
 * `LMS-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (SPEC §12), after
 * Stripe's scheme: the timestamp inside the signed text lets receivers refuse replays.
 */
export function signatureHeader(secrets: string | readonly string[], body: string, at: Date = new Date()): string {
	const t = Math.floor(at.getTime() / 1000);
	// One v1= per secret: the current one, and for 24 h after a rotation the previous one (SPEC §19).
	const v1 = (typeof secrets === 'string' ? [secrets] : secrets).map((secret) => `,v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`);
	return `t=${t}${v1.join('')}`;
}
