import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

import { EXCHANGE_BODY_BYTES, keptBody } from './exchange';
import type { DeliveryTarget } from './url-policy';

export interface SendResult {
	/** The receiver's HTTP status, or undefined when there was none (refused, timeout, TLS…). */
	status?: number;
	/** Why it did not succeed, in a few words for the settings page and logs. */
	error?: string;
	/** The receiver did not answer within the timeout (the worker then gives it fewer slots). */
	timedOut?: boolean;
	/** The answer's body, cut to EXCHANGE_BODY_BYTES (webhooks/exchange.ts); undefined without an answer. */
	responseBody?: string;
}

/**
 * POSTs one body to a checked target. The connection goes to `target.address`, the address
 * the URL policy approved, whatever the DNS says by now; TLS still verifies the certificate
 * against the URL's host name. The whole exchange (connect, send, answer) gets `timeoutMs`.
 */
export function send(target: DeliveryTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult> {
	const pinned: LookupFunction = (_hostname, options, callback) => {
		if ((options as { all?: boolean }).all) {
			(callback as unknown as (err: null, addresses: Array<{ address: string; family: number }>) => void)(null, [
				{ address: target.address, family: target.family },
			]);
		} else {
			callback(null, target.address, target.family);
		}
	};
	const transport = target.url.protocol === 'https:' ? https : http;
	return new Promise((resolve) => {
		let settled = false;
		const done = (result: SendResult) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			resolve(result);
		};
		const request = transport.request(
			target.url,
			{
				method: 'POST',
				lookup: pinned,
				agent: false,
				headers: { ...headers, 'Content-Length': Buffer.byteLength(body) },
			},
			(response) => {
				// The first EXCHANGE_BODY_BYTES are kept for the delivery log; the rest is read and
				// dropped, so the socket can close cleanly and a huge answer costs no memory.
				const chunks: Buffer[] = [];
				let kept = 0;
				let total = 0;
				response.on('data', (chunk: Buffer) => {
					total += chunk.length;
					if (kept > EXCHANGE_BODY_BYTES) return;
					chunks.push(chunk);
					kept += chunk.length;
				});
				const answered = () => done({ status: response.statusCode, responseBody: keptBody(Buffer.concat(chunks), total) });
				response.on('end', answered);
				response.on('error', answered);
			},
		);
		const timer = setTimeout(() => {
			request.destroy(new Error('timeout'));
			done({ error: `no answer within ${timeoutMs / 1000} s`, timedOut: true });
		}, timeoutMs);
		request.on('error', (err: NodeJS.ErrnoException) => done({ error: err.code ?? err.message }));
		request.end(body);
	});
}
