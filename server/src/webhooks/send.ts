import http from 'node:http';
import https from 'node:https';

import { acquire } from './connections';
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
	/** The answer's size in bytes, whole; undefined without an answer. */
	responseSize?: number;
}

/**
 * POSTs one body to a checked target, on a kept connection to the address the URL policy
 * approved (connections.ts), whatever the DNS says by now; TLS still verifies the certificate
 * against the URL's host name. The whole exchange (connect, send, answer) gets `timeoutMs`.
 */
export async function send(target: DeliveryTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult> {
	const deadline = Date.now() + timeoutMs;
	const first = await post(target, headers, body, timeoutMs);
	// A kept socket the receiver closed as we reused it: no answer was started, so the request is
	// sent again once, on a new connection (what every keep-alive client does).
	if (!first.reusedSocketReset) return first.result;
	return (await post(target, headers, body, Math.max(1, deadline - Date.now()))).result;
}

function post(target: DeliveryTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<{ result: SendResult; reusedSocketReset?: boolean }> {
	const transport = target.url.protocol === 'https:' ? https : http;
	const { agent, release } = acquire(target);
	return new Promise((resolve) => {
		let settled = false;
		const done = (result: SendResult, reusedSocketReset?: boolean) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			release();
			resolve({ result, reusedSocketReset });
		};
		let answered = false;
		const request = transport.request(
			target.url,
			{
				method: 'POST',
				agent,
				headers: { ...headers, 'Content-Length': Buffer.byteLength(body) },
			},
			(response) => {
				answered = true;
				// The first EXCHANGE_BODY_BYTES are kept for the delivery log; the rest is read and
				// dropped, so the socket can be kept for the next send and a huge answer costs no memory.
				const chunks: Buffer[] = [];
				let kept = 0;
				let total = 0;
				response.on('data', (chunk: Buffer) => {
					total += chunk.length;
					if (kept > EXCHANGE_BODY_BYTES) return;
					chunks.push(chunk);
					kept += chunk.length;
				});
				const ended = () => done({ status: response.statusCode, responseBody: keptBody(Buffer.concat(chunks), total), responseSize: total });
				response.on('end', ended);
				response.on('error', ended);
			},
		);
		const timer = setTimeout(() => {
			request.destroy(new Error('timeout'));
			done({ error: `no answer within ${timeoutMs / 1000} s`, timedOut: true });
		}, timeoutMs);
		request.on('error', (err: NodeJS.ErrnoException) =>
			done({ error: err.code ?? err.message }, request.reusedSocket && !answered && (err.code === 'ECONNRESET' || err.code === 'EPIPE')),
		);
		request.end(body);
	});
}
