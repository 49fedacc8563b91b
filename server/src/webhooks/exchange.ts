/**
 * What Settings → Webhooks and `GET …/deliveries` show of a delivery's last attempt: the request
 * sent (headers, body) and the receiver's answer (status, body). Bodies are kept to
 * EXCHANGE_BODY_BYTES each, so a log of thousands of deliveries (or a receiver that answers with
 * a whole HTML error page) stays small; what is cut ends with TRUNCATED_MARKER and the full size.
 */
export const EXCHANGE_BODY_BYTES = 4096;

export const TRUNCATED_MARKER = '… [truncated:';

/** `body` as stored: at most EXCHANGE_BODY_BYTES of it, then the marker saying how much there was. */
export function keptBody(body: Buffer | string, total = Buffer.byteLength(body)): string {
	const bytes = typeof body === 'string' ? Buffer.from(body) : body;
	if (total <= EXCHANGE_BODY_BYTES && bytes.length <= EXCHANGE_BODY_BYTES) return bytes.toString('utf8');
	// A cut through a multi-byte character decodes as U+FFFD: drop it rather than show it.
	const kept = bytes.subarray(0, EXCHANGE_BODY_BYTES).toString('utf8').replace(/\uFFFD$/, '');
	return `${kept}${TRUNCATED_MARKER} ${total} bytes in all]`;
}

/** The request of an attempt, as stored (JSON in `last_request`). */
export interface SentRequest {
	headers: Record<string, string>;
	body: string;
}
