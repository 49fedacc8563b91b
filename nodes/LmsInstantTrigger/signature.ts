import { createHmac, timingSafeEqual } from 'crypto';

/** SPEC §12 and §15: deliveries older (or newer) than this are refused as stale. */
const TOLERANCE_SECONDS = 300;

export type SignatureVerdict =
	| { ok: true; timestamp: number; signature: string }
	| { ok: false; reason: string };

/**
 * Checks `LMS-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` against the
 * endpoint's secret, over the body exactly as it arrived. The comparison takes the same time
 * whatever the bytes, so the signature cannot be guessed one byte at a time.
 */
export function verifySignature(
	header: string | string[] | undefined,
	rawBody: Buffer | undefined,
	secret: string | undefined,
	nowSeconds: number,
): SignatureVerdict {
	if (!secret) return { ok: false, reason: 'this trigger has no signing secret yet: reactivate the workflow' };
	if (typeof header !== 'string' || header === '') return { ok: false, reason: 'the request is not signed (no LMS-Signature header)' };
	if (!rawBody) return { ok: false, reason: 'the request has no body to verify' };
	let timestamp: number | undefined;
	const signatures: string[] = [];
	for (const part of header.split(',')) {
		const [key, value] = part.trim().split('=', 2);
		if (key === 't' && /^\d{1,12}$/.test(value ?? '')) timestamp = Number(value);
		if (key === 'v1' && /^[0-9a-f]{64}$/.test(value ?? '')) signatures.push(value);
	}
	if (timestamp === undefined || signatures.length === 0) return { ok: false, reason: 'the LMS-Signature header is malformed' };
	if (Math.abs(nowSeconds - timestamp) > TOLERANCE_SECONDS) {
		return { ok: false, reason: 'the signature is more than 5 minutes old (or from the future): refused as a replay' };
	}
	const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
	const match = signatures.find((candidate) => timingSafeEqual(Buffer.from(candidate, 'hex'), expected));
	if (!match) return { ok: false, reason: 'the signature does not match this endpoint\'s secret' };
	return { ok: true, timestamp, signature: match };
}
