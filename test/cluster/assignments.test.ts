import { Client } from 'pg';

import { runCli } from '../helpers/cli';
import { createPostgresDatabase, onPostgres, type TestDatabase } from '../helpers/database';
import { startInstance, type Instance } from '../helpers/instances';
import { waitUntil } from '../helpers/wait';

/**
 * SPEC §20: an assignment is applied in the background, batch by batch, resumable after kill -9,
 * each member once even with two instances. Two real `lms-server start` processes on one
 * PostgreSQL; the one applying is killed (SIGKILL) in the middle; the other finishes. The once is
 * read from the database: one enrollment and one enrollment.created per member, whoever wrote it.
 */

jest.setTimeout(300_000);

const MEMBERS = 3000;

onPostgres(describe)('an assignment applied by two instances across a kill -9', () => {
	let database: TestDatabase;
	let pg: Client;
	const instances: Instance[] = [];

	afterAll(async () => {
		await Promise.all(instances.map((i) => i.stop()));
		await pg?.end();
		await database?.remove();
	});

	test('every active student member is enrolled exactly once, with one event each, and applied_at is set', async () => {
		database = await createPostgresDatabase();
		const cli = async (...args: string[]) => {
			const result = await runCli(args, { env: { DATABASE_URL: database.databaseUrl } });
			if (result.code !== 0) throw new Error(`lms-server ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
			return result.stdout;
		};
		await cli('migrate');
		const demo = JSON.parse(await cli('seed', '--demo', '--json')) as { organizations: Array<{ slug: string; id: string }> };
		const acmeId = demo.organizations.find((o) => o.slug === 'acme')!.id;
		const scopes = 'read:users,write:users,read:enrollments,write:enrollments';
		const key = (JSON.parse(await cli('keys', 'create', '--org', 'acme', '--label', 'assign', '--scopes', scopes, '--json')) as { key: string }).key;
		pg = new Client({ connectionString: database.databaseUrl });
		await pg.connect();
		const { rows: students } = await pg.query<{ id: string }>(
			`INSERT INTO users (id, organization_id, name, email, email_lower, role, status, created_at, updated_at)
			 SELECT 'usr_a' || lpad(g::text, 8, '0'), $1::varchar, 'Member ' || g, 'member' || g || '@acme.test', 'member' || g || '@acme.test', 'student', 'active', now(), now()
			 FROM generate_series(1, $2::int) g RETURNING id`,
			[acmeId, MEMBERS],
		);
		const { rows: [course] } = await pg.query<{ id: string }>(
			`INSERT INTO courses (id, organization_id, title, description, status, published_at, created_at, updated_at)
			 VALUES ('crs_assigned1', $1, 'Assigned', '', 'published', now(), now(), now()) RETURNING id`,
			[acmeId],
		);

		const env = { DATABASE_URL: database.databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000' };
		instances.push(await startInstance(env, ['--no-migrate'], 90_000), await startInstance(env, ['--no-migrate'], 90_000));
		const [first, second] = instances;
		const api = async (base: string, path: string, method = 'GET', body?: unknown) => {
			const res = await fetch(`${base}/api/v1${path}`, {
				method,
				headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			return { status: res.status, body: (await res.json()) as Record<string, unknown> & { id: string } };
		};
		const group = (await api(first.url, '/groups', 'POST', { name: 'Everyone' })).body;
		for (let i = 0; i < students.length; i += 1000) {
			const added = await api(first.url, `/groups/${group.id}/members`, 'POST', { user_ids: students.slice(i, i + 1000).map((s) => s.id) });
			expect(added.status).toBe(200);
		}

		const assignment = await api(first.url, '/assignments', 'POST', { group_id: group.id, course_id: course.id, due_in_days: 7 });
		expect(assignment.status).toBe(201);
		const made = async () => Number((await pg.query('SELECT count(*) AS n FROM enrollments WHERE assignment_id = $1', [assignment.body.id])).rows[0].n);
		// The instance that took it (woken by the creation) is killed once its first batches committed.
		await waitUntil(async () => (await made()) > 0, { what: 'the first batch', interval: 5, timeout: 30_000 });
		process.kill(first.pid, 'SIGKILL');
		await first.stop();
		const atKill = await made();
		expect(atKill).toBeLessThan(MEMBERS);

		const applied = await waitUntil(async () => (await api(second.url, `/assignments/${assignment.body.id}`)).body.applied_at, { what: 'applied_at', timeout: 90_000 });
		expect(applied).toEqual(expect.any(String));
		const { rows } = await pg.query<{ enrollments: string; students: string; events: string }>(
			`SELECT (SELECT count(*) FROM enrollments WHERE assignment_id = $1) AS enrollments,
			        (SELECT count(DISTINCT student_id) FROM enrollments WHERE assignment_id = $1) AS students,
			        (SELECT count(*) FROM events WHERE type = 'enrollment.created' AND data LIKE '%' || $1 || '%') AS events`,
			[assignment.body.id],
		);
		expect(rows[0]).toEqual({ enrollments: String(MEMBERS), students: String(MEMBERS), events: String(MEMBERS) });
		const due = await pg.query('SELECT count(*) AS n FROM enrollments WHERE assignment_id = $1 AND due_at IS NULL', [assignment.body.id]);
		expect(due.rows[0].n).toBe('0');
	});
});
