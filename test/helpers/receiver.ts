import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got, as it arrived. */
interface Received {
	at: number;
	method: string;
	path: string;
	headers: IncomingMessage['headers'];
	body: string;
	/** The sender's port: requests on one kept connection share it. */
	remotePort: number;
}

type Answer = (request: Received, res: ServerResponse) => void;

export interface Receiver {
	url: string;
	port: number;
	received: Received[];
	/** Connections open now (keep-alive keeps them between requests). */
	openConnections(): number;
	/** Changes how the next requests are answered (default: 200). */
	answer(handler: Answer): void;
	/** Resolves once `count` requests arrived (rejects after `timeoutMs`). */
	waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
	close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 that records what webhooks post to it. */
export async function startReceiver(path = '/hook'): Promise<Receiver> {
	const received: Received[] = [];
	let handler: Answer = (_r, res) => res.writeHead(200).end('ok');
	const waiters: Array<() => void> = [];
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const request = {
				at: Date.now(),
				method: req.method ?? '',
				path: req.url ?? '',
				headers: req.headers,
				body: Buffer.concat(chunks).toString('utf8'),
				remotePort: req.socket.remotePort ?? 0,
			};
			received.push(request);
			for (const wake of waiters.splice(0)) wake();
			handler(request, res);
		});
	});
	let open = 0;
	server.on('connection', (socket) => {
		open += 1;
		socket.once('close', () => (open -= 1));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}${path}`,
		port,
		received,
		openConnections: () => open,
		answer: (h) => (handler = h),
		async waitFor(count, timeoutMs = 10_000) {
			const deadline = Date.now() + timeoutMs;
			while (received.length < count) {
				const left = deadline - Date.now();
				if (left <= 0) throw new Error(`receiver got ${received.length} of ${count} requests within ${timeoutMs} ms`);
				await new Promise<void>((resolve) => {
					const timer = setTimeout(resolve, left);
					waiters.push(() => {
						clearTimeout(timer);
						resolve();
					});
				});
			}
			return received.slice(0, count);
		},
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
