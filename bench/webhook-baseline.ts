/**
 * The hand-written baseline of webhook-throughput (issue 40), run as a child process on the
 * server's own database once the server has stopped: the least code that claims due deliveries,
 * signs them, sends them with keep-alive and records the same rows (the delivery's outcome and
 * one attempt row per send), with the server's cap for one organization (PER_ORGANIZATION sends at once, server/src/webhooks/caps.ts). No URL policy, no scopes,
 * no fairness, no receipts, no logs. It signs with the sealed secret as stored: an HMAC costs the
 * same whatever its key. Prints {"deliveries", "startedAt" (epoch ms of its first claim), "cpuMs"} once `BENCH_BASELINE_EXPECT`
 * deliveries are recorded.
 */
import { createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';

import { Client } from 'pg';
import sqlite3 from 'sqlite3';

import { PER_ORGANIZATION } from '../server/src/webhooks/caps';

/** The server's cap for one organization: the baseline sends as many at once. */
const IN_FLIGHT = PER_ORGANIZATION;
const url = process.env.DATABASE_URL!;
const expected = Number(process.env.BENCH_BASELINE_EXPECT);
const postgres = !url.startsWith('sqlite:');

type Row = Record<string, unknown>;
let query: (sql: string, params: unknown[]) => Promise<Row[]>;

/** SQLite keeps DATE columns as text in this form (server/src/db/database.ts storedTime). */
const stored = (at: Date) => (postgres ? at.toISOString() : at.toISOString().replace('T', ' ').replace('Z', ' +00:00'));

async function open(): Promise<void> {
	if (postgres) {
		const client = new Client({ connectionString: url });
		await client.connect();
		query = async (sql, params) => (await client.query(sql, params)).rows as Row[];
		return;
	}
	const db = new sqlite3.Database(url.slice('sqlite:'.length));
	db.configure('busyTimeout', 5000);
	query = (sql, params) => new Promise((resolve, reject) => db.all(sql.replace(/\$(\d+)/g, '?$1'), params, (err, rows) => (err ? reject(err) : resolve(rows as Row[]))));
}

const json = (expression: string) => (postgres ? `json_array_elements(${expression}::json) AS o (v)` : `json_each(${expression}) AS o`);
const field = (name: string) => (postgres ? `o.v ->> '${name}'` : `o.value ->> '$.${name}'`);
const time = (name: string) => (postgres ? `(${field(name)})::timestamptz` : field(name));

const CLAIM = `UPDATE webhook_deliveries SET lease_until = $1, lease_token = $2, attempts = attempts + 1, last_attempt_at = $3
	WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until < $3)
		ORDER BY next_attempt_at LIMIT $4 ${postgres ? 'FOR UPDATE SKIP LOCKED' : ''})
	RETURNING id, endpoint_id, event_id, event_type, attempts`;
const EVENTS = `SELECT id, data FROM events WHERE id IN (${postgres ? 'SELECT json_array_elements_text($1::json)' : 'SELECT value FROM json_each($1)'})`;
const RECORD = `UPDATE webhook_deliveries SET status = 'delivered', delivered_at = ${time('at')}, last_status_code = 200, last_error = NULL,
	last_request = ${field('request')}, last_response_body = ${field('response')}, lease_until = NULL, lease_token = NULL, updated_at = ${time('at')}
	FROM ${json('$1')} WHERE webhook_deliveries.id = ${field('id')}`;
const ATTEMPTS = `INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, request_headers, response_size)
	SELECT ${field('id')}, ${postgres ? `(${field('attempt')})::int` : field('attempt')}, ${time('started')}, ${postgres ? `(${field('ms')})::int` : field('ms')}, 200, ${field('headers')}, 2
	FROM ${json('$1')}`;

interface Done {
	id: string;
	attempt: number;
	started: string;
	ms: number;
	at: string;
	headers: string;
	request: string;
	response: string;
}

async function main(): Promise<void> {
	await open();
	const endpoints = new Map<string, { url: URL; secret: string; agent: http.Agent }>();
	for (const e of await query('SELECT id, url, secret FROM webhook_endpoints', [])) {
		endpoints.set(String(e.id), { url: new URL(String(e.url)), secret: String(e.secret), agent: new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT }) });
	}
	const cpu = process.cpuUsage();
	const started = Date.now();
	let inFlight = 0;
	let recorded = 0;
	let done: Done[] = [];
	let claiming = false;
	let flushing = false;
	let finish: () => void = () => undefined;
	const finished = new Promise<void>((resolve) => (finish = resolve));
	// One statement at a time on the one connection: claims and flushes take turns.
	let turn: Promise<unknown> = Promise.resolve();
	const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
		const run = turn.then(work);
		turn = run.catch(() => undefined);
		return run;
	};
	const transaction = async (work: () => Promise<void>) => {
		await query(postgres ? 'BEGIN' : 'BEGIN IMMEDIATE', []);
		await work();
		await query('COMMIT', []);
	};

	const flush = async (): Promise<void> => {
		if (flushing || done.length === 0) return;
		flushing = true;
		const batch = done;
		done = [];
		const list = JSON.stringify(batch);
		await inTurn(() => transaction(async () => {
			await query(ATTEMPTS, [list]);
			await query(RECORD, [list]);
		}));
		recorded += batch.length;
		flushing = false;
		if (recorded >= expected) finish();
		else void flush();
	};

	const send = (row: Row, body: string, again = true): void => {
		const endpoint = endpoints.get(String(row.endpoint_id))!;
		const sentAt = new Date();
		const t = Math.floor(sentAt.getTime() / 1000);
		const headers = {
			'Content-Type': 'application/json',
			'LMS-Event-Id': String(row.event_id),
			'LMS-Event-Type': String(row.event_type),
			'LMS-Signature': `t=${t},v1=${createHmac('sha256', endpoint.secret).update(`${t}.${body}`).digest('hex')}`,
		};
		const request = http.request(endpoint.url, { method: 'POST', agent: endpoint.agent, headers: { ...headers, 'Content-Length': Buffer.byteLength(body) } }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () => {
				const at = new Date();
				done.push({
					id: String(row.id),
					attempt: Number(row.attempts),
					started: stored(sentAt),
					ms: at.getTime() - sentAt.getTime(),
					at: stored(at),
					headers: JSON.stringify(headers),
					request: JSON.stringify({ headers, body }),
					response: Buffer.concat(chunks).toString(),
				});
				inFlight -= 1;
				void flush();
				void claim();
			});
		});
		request.on('error', (err: NodeJS.ErrnoException) => {
			// A kept socket the receiver closed as it was reused: sent again once on a new one, as the server's send.ts does.
			if (again && request.reusedSocket && err.code === 'ECONNRESET') send(row, body, false);
			else throw err;
		});
		request.end(body);
	};

	const claim = async (): Promise<void> => {
		if (claiming) return;
		claiming = true;
		try {
			while (inFlight < IN_FLIGHT) {
				const now = new Date();
				const rows = await inTurn(async () => {
					let claimed: Row[] = [];
					await transaction(async () => {
						claimed = await query(CLAIM, [stored(new Date(now.getTime() + 35_000)), randomUUID(), stored(now), IN_FLIGHT - inFlight]);
					});
					return claimed;
				});
				if (rows.length === 0) return;
				const events = new Map((await inTurn(() => query(EVENTS, [JSON.stringify(rows.map((r) => r.event_id))]))).map((e) => [String(e.id), String(e.data)]));
				inFlight += rows.length;
				for (const row of rows) send(row, JSON.stringify({ id: row.event_id, type: row.event_type, data: { object: JSON.parse(events.get(String(row.event_id))!) } }));
			}
		} finally {
			claiming = false;
		}
	};

	await claim();
	await finished;
	const used = process.cpuUsage(cpu);
	process.stdout.write(`${JSON.stringify({ deliveries: recorded, startedAt: started, cpuMs: (used.user + used.system) / 1000 })}\n`);
	process.exit(0);
}

void main();
