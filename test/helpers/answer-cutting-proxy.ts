import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP proxy that loses answers the way a network does after the server has acted: it
 * forwards each request, waits for the server's whole answer (so the server has committed), and
 * then either passes the answer on or destroys the client's connection without a byte of it.
 * The client cannot tell whether its write happened; only its Idempotency-Key makes a retry safe.
 * It also counts every request a client sends, which is how the benchmarks count n8n's.
 */

interface ProxiedRequest {
	method: string;
	/** Path and query, as sent. */
	path: string;
	idempotencyKey: string | undefined;
	status: number;
	/** The server answered from its idempotency store (`Idempotent-Replayed: true`). */
	replayed: boolean;
	/** The answer was withheld and the client's connection destroyed. */
	cut: boolean;
}

/** Decides, once the server has answered, whether the client is to lose that answer. */
export type CutRule = (request: Omit<ProxiedRequest, 'cut'>) => boolean;

export interface AnswerCuttingProxy {
	/** The origin to give the client instead of the server's. */
	url: string;
	/** The server's origin; settable, so one proxy URL (one n8n credential) serves servers in turn. */
	target: string;
	/** Which answers to withhold; settable like target. */
	cut: CutRule;
	/** Every request forwarded since the start or the last clear(), in the order the answers came. */
	readonly requests: ProxiedRequest[];
	clear(): void;
	close(): Promise<void>;
}

/** Headers that belong to one connection, not to the request or answer they travel with. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'content-length']);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
	return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

async function bodyOf(stream: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

export async function startAnswerCuttingProxy({ target, cut = () => false }: { target: string; cut?: CutRule }): Promise<AnswerCuttingProxy> {
	const agent = new Agent({ keepAlive: true });
	const requests: ProxiedRequest[] = [];
	const server = createServer((req, res) => {
		void (async () => {
			const body = await bodyOf(req);
			const upstream = await new Promise<IncomingMessage>((resolve, reject) => {
				const forward = httpRequest(new URL(req.url ?? '/', proxy.target), {
					method: req.method,
					headers: { ...endToEnd(req.headers), 'content-length': String(body.length) },
					agent,
				});
				forward.once('response', resolve);
				forward.once('error', reject);
				forward.end(body);
			});
			const answer = await bodyOf(upstream);
			const key = req.headers['idempotency-key'];
			const seen = {
				method: req.method ?? 'GET',
				path: req.url ?? '/',
				idempotencyKey: typeof key === 'string' ? key : undefined,
				status: upstream.statusCode ?? 0,
				replayed: upstream.headers['idempotent-replayed'] === 'true',
			};
			const withheld = proxy.cut(seen);
			requests.push({ ...seen, cut: withheld });
			if (withheld) {
				req.socket.destroy();
				return;
			}
			res.writeHead(seen.status, { ...endToEnd(upstream.headers), 'content-length': String(answer.length) });
			res.end(answer);
		})().catch(() => req.socket.destroy());
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const proxy: AnswerCuttingProxy = {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		target,
		cut,
		requests,
		clear: () => void requests.splice(0),
		async close() {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
			agent.destroy();
		},
	};
	return proxy;
}

/**
 * Cuts the first committed (2xx) answer to each batch POST to `path` whose first input item is
 * one of `firstItems`, read from the Idempotency-Key the nodes send (`…:i<first>-<last>:…`);
 * the retry of that batch then gets its answer.
 */
export function cutFirstAnswerOfBatches(path: string, firstItems: number[]): CutRule {
	const toCut = new Set(firstItems);
	const cutKeys = new Set<string>();
	return ({ method, path: sent, idempotencyKey, status }) => {
		if (method !== 'POST' || !sent.endsWith(path) || status < 200 || status >= 300 || !idempotencyKey) return false;
		const first = /:i(\d+)-\d+:/.exec(idempotencyKey)?.[1];
		if (first === undefined || !toCut.has(Number(first)) || cutKeys.has(idempotencyKey)) return false;
		cutKeys.add(idempotencyKey);
		return true;
	};
}
