import { Client } from 'pg';

import { runCli } from '../helpers/cli';
import { createPostgresDatabase, type TestDatabase, onPostgres } from '../helpers/database';
import { startInstance, type Instance } from '../helpers/instances';
import { waitUntil } from '../helpers/wait';

/**
 * SPEC §19: a transaction that holds a transaction id in another database of the same cluster
 * (another application, a migration, an idle-in-transaction session) must not stop the feed, the
 * LMS Trigger or the webhooks. Events are numbered as they commit (events/queries.ts), so one
 * open in this database does not stop it either, and nothing is skipped.
 */

onPostgres(describe)('the feed with a write transaction open in another database of the cluster', () => {
	let lms: TestDatabase;
	let other: TestDatabase;
	let instance: Instance;
	let key: string;
	let student: string;
	const courses: string[] = [];

	beforeAll(async () => {
		[lms, other] = await Promise.all([createPostgresDatabase(), createPostgresDatabase()]);
		const cli = async (...args: string[]) => {
			const result = await runCli(args, { env: { DATABASE_URL: lms.databaseUrl } });
			if (result.code !== 0) throw new Error(`lms-server ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
			return result.stdout;
		};
		await cli('migrate');
		await cli('seed', '--demo', '--json');
		key = (JSON.parse(await cli('keys', 'create', '--org', 'acme', '--label', 'feed', '--scopes', 'read:users,read:enrollments,write:enrollments,read:courses', '--json')) as { key: string }).key;
		const db = new Client({ connectionString: lms.databaseUrl });
		await db.connect();
		const { rows } = await db.query<{ student: string; course: string }>(
			`SELECT u.id AS student, c.id AS course FROM users u JOIN organizations o ON o.id = u.organization_id
			 JOIN courses c ON c.organization_id = o.id
			 WHERE o.slug = 'acme' AND u.role = 'student' AND c.status = 'published'
			   AND NOT EXISTS (SELECT 1 FROM enrollments e WHERE e.student_id = u.id AND e.course_id = c.id)
			 ORDER BY u.id, c.id LIMIT 20`,
		);
		await db.end();
		student = rows[0].student;
		courses.push(...rows.filter((r) => r.student === student).map((r) => r.course));
		expect(courses.length).toBeGreaterThanOrEqual(2);
		instance = await startInstance({ DATABASE_URL: lms.databaseUrl });
	});

	afterAll(async () => {
		await instance?.stop();
		await Promise.all([lms?.remove(), other?.remove()]);
	});

	const api = async (path: string, method = 'GET', body?: unknown) => {
		const res = await fetch(`${instance.url}${path}`, {
			method,
			headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
			body: body ? JSON.stringify(body) : undefined,
		});
		return { status: res.status, body: (await res.json()) as Record<string, unknown> };
	};

	/** Polls the feed from `after` until an event about `objectId` shows, or the deadline passes. */
	async function appears(after: string | null, objectId: string, timeout: number): Promise<boolean> {
		const served = async () => {
			const reply = await api(`/api/v1/events?limit=100${after ? `&after=${after}` : ''}`);
			expect(reply.status).toBe(200);
			return (reply.body.data as Array<{ data: { object: { id: string } } }>).some((e) => e.data.object.id === objectId);
		};
		return waitUntil(served, { timeout, interval: 100, what: `an event about ${objectId}` }).catch(() => false);
	}

	const head = async () => (await api('/api/v1/events/head')).body.after as string | null;

	test('a new event appears within seconds while the other database holds a transaction id for 10 s', async () => {
		const elsewhere = new Client({ connectionString: other.databaseUrl });
		await elsewhere.connect();
		try {
			await elsewhere.query('BEGIN');
			await elsewhere.query('SELECT pg_current_xact_id()');
			const opened = Date.now();
			const after = await head();
			const created = await api('/api/v1/enrollments', 'POST', { student_id: student, course_id: courses[0] });
			expect(created.status).toBe(201);
			const seen = await appears(after, created.body.id as string, 5_000);
			// The other transaction was open the whole time: the event did not wait for it to end.
			const { rows } = await elsewhere.query<{ open: boolean }>('SELECT pg_current_xact_id() IS NOT NULL AS open');
			expect(rows[0].open).toBe(true);
			expect(seen).toBe(true);
			expect(Date.now() - opened).toBeLessThan(10_000);
		} finally {
			await elsewhere.query('ROLLBACK').catch(() => undefined);
			await elsewhere.end();
		}
	}, 60_000);

	test('a transaction open in this database holds nothing back either: events are numbered as they commit', async () => {
		const here = new Client({ connectionString: lms.databaseUrl });
		await here.connect();
		try {
			await here.query('BEGIN');
			await here.query('SELECT pg_current_xact_id()');
			const after = await head();
			const created = await api('/api/v1/enrollments', 'POST', { student_id: student, course_id: courses[1] });
			expect(created.status).toBe(201);
			expect(await appears(after, created.body.id as string, 5_000)).toBe(true);
			const { rows } = await here.query<{ open: boolean }>('SELECT pg_current_xact_id() IS NOT NULL AS open');
			expect(rows[0].open).toBe(true);
		} finally {
			await here.query('ROLLBACK').catch(() => undefined);
			await here.end();
		}
	}, 60_000);
});
