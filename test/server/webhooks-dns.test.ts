import { createSocket, type Socket } from 'node:dgram';

import { WebhookEndpoint } from '../../server/src/db';
import type { TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';
import { call, NO_LIMIT, startApiServer, type World } from './api-fixtures';

/**
 * Issue 27, finding 3: slow DNS must not freeze the SQLite API. The URL check used dns.lookup,
 * which runs on libuv's four pool threads, the threads every sqlite3 statement needs: four slow
 * look-ups stalled every organization's API. The check now resolves with c-ares (no pool
 * thread), at most 8 look-ups at once, answers cached briefly. Proven with a name server on
 * 127.0.0.1 that holds its answers back (WEBHOOK_DNS_SERVERS points the server at it).
 */

const HOLD_MS = 3_000;

interface SlowDns {
	port: number;
	/** Questions received, by name. */
	asked: string[];
	/** Most questions held at the same moment. */
	maxHeld: number;
	held(): number;
	close(): Promise<void>;
}

/** A name server that answers every A question with 93.184.216.34 (public) after HOLD_MS, AAAA with nothing. */
async function startSlowDns(): Promise<SlowDns> {
	const socket: Socket = createSocket('udp4');
	const asked: string[] = [];
	let held = 0;
	const state = { maxHeld: 0 };
	const timers = new Set<NodeJS.Timeout>();
	socket.on('message', (query, from) => {
		// The question: labels from byte 12 to a zero byte, then type and class.
		const labels: string[] = [];
		let at = 12;
		while (query[at] !== 0) {
			labels.push(query.subarray(at + 1, at + 1 + query[at]).toString('ascii'));
			at += query[at] + 1;
		}
		const questionEnd = at + 5;
		const type = query.readUInt16BE(at + 1);
		asked.push(labels.join('.'));
		held++;
		state.maxHeld = Math.max(state.maxHeld, held);
		const timer = setTimeout(() => {
			timers.delete(timer);
			held--;
			const header = Buffer.alloc(12);
			query.copy(header, 0, 0, 2); // the id
			header.writeUInt16BE(0x8180, 2); // a response, recursion desired and available, no error
			header.writeUInt16BE(1, 4);
			header.writeUInt16BE(type === 1 ? 1 : 0, 6);
			const answer =
				type === 1
					? Buffer.concat([Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4]), Buffer.from([93, 184, 216, 34])])
					: Buffer.alloc(0);
			socket.send(Buffer.concat([header, query.subarray(12, questionEnd), answer]), from.port, from.address);
		}, HOLD_MS);
		timers.add(timer);
	});
	await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
	return {
		port: socket.address().port,
		asked,
		get maxHeld() {
			return state.maxHeld;
		},
		held: () => held,
		close: () =>
			new Promise((resolve) => {
				for (const t of timers) clearTimeout(t);
				socket.close(() => resolve());
			}),
	};
}

let server: TestServer;
let world: World;
let dns: SlowDns;

beforeAll(async () => {
	dns = await startSlowDns();
	({ server, world } = await startApiServer({
		...NO_LIMIT,
		WEBHOOK_DNS_SERVERS: `127.0.0.1:${dns.port}`,
		WEBHOOK_DNS_TIMEOUT_MS: String(HOLD_MS * 3),
		WEBHOOK_DNS_TRIES: '1',
	}));
});
afterAll(async () => {
	await server.stop();
	await dns.close();
});

const subscribe = (host: string) =>
	call(server, '/api/v1/webhook_endpoints', { method: 'POST', key: world.keys.all, body: { url: `https://${host}/hook`, events: ['*'] } });

test('12 slow look-ups at once: the SQLite API answers meanwhile, at most 8 are asked at once, and a name is asked once', async () => {
	const hosts = Array.from({ length: 12 }, (_, i) => `slow${i}.example.test`);
	const creations = Promise.all(hosts.map(subscribe));
	// Positive signal first: the look-ups are under way (held by the name server).
	await waitUntil(() => dns.held() >= 8, { interval: 10, what: 'the name server holding 8 questions' });
	const started = Date.now();
	for (const path of ['/api/v1/courses', '/api/v1/users', '/api/v1/enrollments', '/api/v1/certificates']) {
		expect((await call(server, path, { key: world.keys.all })).status).toBe(200);
	}
	const apiMs = Date.now() - started;
	// The look-ups are still held: the API did not wait for them.
	expect(dns.held()).toBeGreaterThan(0);
	expect(apiMs).toBeLessThan(HOLD_MS);

	const replies = await creations;
	expect(replies.map((r) => r.status)).toEqual(hosts.map(() => 201));
	// A and AAAA for each name, at most 8 names at once.
	expect(dns.maxHeld).toBeLessThanOrEqual(16);
	const asked = dns.asked.length;
	expect(new Set(dns.asked)).toEqual(new Set(hosts));

	// Checked again within the cache's window: no new question.
	expect((await subscribe(hosts[0])).status).toBe(201);
	expect(dns.asked.length).toBe(asked);
	await WebhookEndpoint.destroy({ where: {} });
});
