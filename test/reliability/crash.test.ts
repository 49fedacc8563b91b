/**
 * The real server process, a stream of enrollments, and `kill -9` in the middle of it. After a
 * restart on the same SQLite file: every enrollment that was answered 201 is there, the file
 * passes SQLite's integrity check, and new enrollments work.
 *
 * SQLite is what a single-host operator runs, and its file is what a crash could damage, so this
 * always runs on a SQLite file; with TEST_DATABASE=postgres it runs on PostgreSQL as well (there
 * "opens cleanly" means the restarted server is ready and the tables answer).
 */
import { Agent } from 'node:http';

import { Client } from 'pg';
import sqlite3 from 'sqlite3';

import { runCli } from '../helpers/cli';
import { createPostgresDatabase, createSqliteDatabase, testDialect, testRedisEnv, type TestDatabase } from '../helpers/database';
import { startInstance } from '../helpers/instances';
import { parseJson, send } from './support';

const WRITERS = 8;
/** Kill once this many enrollments were confirmed (or after KILL_AFTER_MS, whichever is first). */
const KILL_AFTER_CREATED = 150;
const KILL_AFTER_MS = 5_000;

const DIALECTS = testDialect() === 'postgres' ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

function cli(env: Record<string, string>, args: string[]) {
	return runCli(args, { env }).then((result) => {
		if (result.code !== 0) throw new Error(`lms-server ${args.join(' ')} failed: ${result.stderr}`);
		return parseJson(result.stdout) as Record<string, unknown>;
	});
}

async function getAll<T>(baseUrl: string, key: string, path: string): Promise<T[]> {
	const rows: T[] = [];
	for (let page = 1; ; page++) {
		const reply = await send(baseUrl, { method: 'GET', path: `${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`, headers: { authorization: `Bearer ${key}` } });
		if (reply.status !== 200) throw new Error(`GET ${path}: ${reply.status} ${reply.text}`);
		const body = parseJson(reply.text) as { data: T[]; pagination: { total: number } };
		rows.push(...body.data);
		if (page * 100 >= body.pagination.total) return rows;
	}
}

/** SQLite's own verdict on the file after the crash (the WAL is replayed on open). */
function sqliteIntegrity(file: string): Promise<string[]> {
	return new Promise((resolve, reject) => {
		const handle = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (openError) => {
			if (openError) return reject(openError);
			handle.all('PRAGMA integrity_check', (err, rows: Array<Record<string, string>>) => {
				handle.close();
				if (err) reject(err);
				else resolve(rows.map((row) => Object.values(row)[0]));
			});
		});
	});
}

/** PostgreSQL after a client crash: a fresh connection works and every table can be read whole. */
async function postgresIntegrity(databaseUrl: string): Promise<string[]> {
	const client = new Client({ connectionString: databaseUrl });
	await client.connect();
	try {
		for (const table of ['organizations', 'users', 'courses', 'enrollments', 'certificates', 'api_keys']) {
			await client.query(`SELECT count(*) FROM ${table}`);
		}
		return ['ok'];
	} finally {
		await client.end();
	}
}

let db: TestDatabase | undefined;
afterEach(() => db?.remove());

test.each(DIALECTS)('%s: kill -9 while enrollments stream in: every 201 survives, the database is intact, the server works after restart', async (dialect) => {
	db = dialect === 'sqlite' ? await createSqliteDatabase() : await createPostgresDatabase();
	const env = { DATABASE_URL: db.databaseUrl, PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'info', ...(await testRedisEnv()) };
	await cli(env, ['seed', '--demo', '--json']);
	const { key } = (await cli(env, ['keys', 'create', '--org', 'acme', '--label', 'crash test', '--scopes', 'read:users,read:courses,read:enrollments,write:enrollments', '--json'])) as { key: string };

	let server = await startInstance(env, []);
	const students = await getAll<{ id: string }>(server.url, key, '/api/v1/users?role=student');
	const courses = await getAll<{ id: string }>(server.url, key, '/api/v1/courses');
	const enrolled = new Set((await getAll<{ student_id: string; course_id: string }>(server.url, key, '/api/v1/enrollments')).map((e) => `${e.student_id} ${e.course_id}`));
	const pairs = students.flatMap((s) => courses.map((c) => ({ student_id: s.id, course_id: c.id }))).filter((p) => !enrolled.has(`${p.student_id} ${p.course_id}`));
	expect(pairs.length).toBeGreaterThan(KILL_AFTER_CREATED * 2);

	// The stream: WRITERS clients posting distinct pairs back to back until the server dies.
	const confirmed: Array<{ id: string; student_id: string; course_id: string }> = [];
	let next = 0;
	let killed = false;
	const agent = new Agent({ keepAlive: true, maxSockets: WRITERS });
	const writer = async () => {
		while (next < pairs.length) {
			const pair = pairs[next++];
			try {
				const reply = await send(
					server.url,
					{ method: 'POST', path: '/api/v1/enrollments', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(pair) },
					agent,
				);
				if (reply.status === 201) confirmed.push(parseJson(reply.text) as (typeof confirmed)[number]);
				else if (!killed) throw new Error(`unexpected ${reply.status}: ${reply.text}`);
			} catch (err) {
				if (killed) return; // the connection died with the server: this answer never came
				throw err;
			}
		}
	};
	const writers = Array.from({ length: WRITERS }, writer);

	const started = Date.now();
	while (confirmed.length < KILL_AFTER_CREATED && Date.now() - started < KILL_AFTER_MS) await new Promise((r) => setTimeout(r, 5));
	killed = true;
	process.kill(server.pid, 'SIGKILL');
	await server.stop();
	await Promise.all(writers);
	agent.destroy();
	const sentBeforeKill = next;
	expect(confirmed.length).toBeGreaterThan(0);
	// The kill really landed mid-stream: requests were still going when it did.
	expect(sentBeforeKill).toBeGreaterThan(confirmed.length);

	expect(dialect === 'sqlite' ? await sqliteIntegrity(db.file!) : await postgresIntegrity(db.databaseUrl)).toEqual(['ok']);

	server = await startInstance(env, []);
	try {
		for (const enrollment of confirmed) {
			const reply = await send(server.url, { method: 'GET', path: `/api/v1/enrollments/${enrollment.id}`, headers: { authorization: `Bearer ${key}` } });
			expect({ id: enrollment.id, status: reply.status }).toEqual({ id: enrollment.id, status: 200 });
			expect(parseJson(reply.text)).toMatchObject({ id: enrollment.id, student_id: enrollment.student_id, course_id: enrollment.course_id });
		}

		// New enrollments work; a pair whose answer was lost is either there (409) or not (201).
		const fresh = pairs.slice(sentBeforeKill, sentBeforeKill + 5);
		for (const pair of fresh) {
			const reply = await send(server.url, { method: 'POST', path: '/api/v1/enrollments', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(pair) });
			expect(reply.status).toBe(201);
		}
		const total = (await getAll(server.url, key, '/api/v1/enrollments')).length;
		expect(total).toBeGreaterThanOrEqual(enrolled.size + confirmed.length + fresh.length);
		expect(total).toBeLessThanOrEqual(enrolled.size + sentBeforeKill + fresh.length);
	} finally {
		await server.stop();
	}
	console.log(`crash (${dialect}): ${confirmed.length} enrollments confirmed, ${sentBeforeKill - confirmed.length} in flight at kill -9; all confirmed ones found after restart`);
}, 120_000);
