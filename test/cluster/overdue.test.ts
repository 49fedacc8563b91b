import { Client } from 'pg';

import { runCli } from '../helpers/cli';
import { createPostgresDatabase, type TestDatabase, onPostgres } from '../helpers/database';
import { startInstance, type Instance } from '../helpers/instances';
import { waitUntil } from '../helpers/wait';

/**
 * SPEC §17: `enrollment.overdue` is told once per deadline across instances and restarts. Real
 * `lms-server start` processes on one PostgreSQL sweep the same rows as fast as they can; one is
 * killed (SIGKILL, no goodbye) in the middle of a backlog. The once is read from the database:
 * every enrollment has exactly one event, whoever wrote it.
 */

jest.setTimeout(240_000);

const eventually = (what: string, condition: () => Promise<boolean>, timeout = 60_000) => waitUntil(condition, { what, timeout });

onPostgres(describe)('enrollment.overdue on two instances and across a crash', () => {
	let database: TestDatabase;
	let pg: Client;
	let acmeId: string;
	let key: string;
	const instances: Instance[] = [];
	const env = () => ({ DATABASE_URL: database.databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000', OVERDUE_SWEEP_MS: '50' });

	beforeAll(async () => {
		database = await createPostgresDatabase();
		const cli = async (...args: string[]) => {
			const result = await runCli(args, { env: { DATABASE_URL: database.databaseUrl } });
			if (result.code !== 0) throw new Error(`lms-server ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
			return result.stdout;
		};
		await cli('migrate');
		const demo = JSON.parse(await cli('seed', '--demo', '--json')) as { organizations: Array<{ slug: string; id: string }> };
		acmeId = demo.organizations.find((o) => o.slug === 'acme')!.id;
		key = (JSON.parse(await cli('keys', 'create', '--org', 'acme', '--label', 'overdue', '--scopes', 'read:enrollments,write:enrollments', '--json')) as { key: string }).key;
		pg = new Client({ connectionString: database.databaseUrl });
		await pg.connect();
		// 60 more published courses, so that 150 students make 9,000 fresh (student, course) pairs.
		await pg.query(
			`INSERT INTO courses (id, organization_id, title, description, status, published_at, created_at, updated_at)
			 SELECT 'crs_' || md5(random()::text || g), $1::varchar, 'Mandatory ' || g, '', 'published', now(), now(), now() FROM generate_series(1, 60) g`,
			[acmeId],
		);
	});

	afterAll(async () => {
		await Promise.all(instances.map((i) => i.stop()));
		await pg?.end();
		await database?.remove();
	});

	/** `n` new active enrollments of acme due at `dueAt` (SQL: the sweep must find rows however they were written). */
	async function assign(n: number, dueAt: Date, [first, last]: [number, number]): Promise<string[]> {
		const { rows } = await pg.query<{ id: string }>(
			`INSERT INTO enrollments (id, organization_id, student_id, course_id, status, progress_percent, enrolled_at, due_at, created_at, updated_at)
			 SELECT 'enr_' || md5(random()::text || u.id || c.id), $1::varchar, u.id, c.id, 'active', 0, now(), $2::timestamptz, now(), now()
			 FROM users u CROSS JOIN courses c
			 WHERE u.organization_id = $1::varchar AND c.organization_id = $1::varchar AND u.role = 'student' AND c.title LIKE 'Mandatory %' AND substr(c.title, 11)::int BETWEEN $4 AND $5
			   AND NOT EXISTS (SELECT 1 FROM enrollments e WHERE e.student_id = u.id AND e.course_id = c.id)
			 ORDER BY c.id, u.id LIMIT $3 RETURNING id`,
			[acmeId, dueAt, n, first, last],
		);
		expect(rows).toHaveLength(n);
		return rows.map((r) => r.id);
	}

	/** enrollment id → how many enrollment.overdue events name it, for these ids. */
	async function told(ids: string[]): Promise<Map<string, number>> {
		const { rows } = await pg.query<{ id: string; n: string }>(
			`SELECT data::json->>'id' AS id, count(*) AS n FROM events
			 WHERE type = 'enrollment.overdue' AND data::json->>'id' = ANY($1) GROUP BY 1`,
			[ids],
		);
		return new Map(rows.map((r) => [r.id, Number(r.n)]));
	}

	test('two instances racing over 1,500 deadlines passing together: each told once, within the minute, through the feed', async () => {
		instances.push(...(await Promise.all([startInstance(env(), undefined, 60_000), startInstance(env(), undefined, 60_000)])));
		const dueAt = new Date(Date.now() + 2_000);
		const ids = await assign(1_500, dueAt, [1, 11]);
		await eventually('1,500 enrollment.overdue', async () => (await told(ids)).size === ids.length);
		// A positive signal after them (a later deadline told), then no repeat of any.
		const marker = await assign(1, new Date(Date.now() + 300), [12, 12]);
		await eventually('the marker is told', async () => (await told(marker)).size === 1);
		const counts = await told(ids);
		expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
		const { rows } = await pg.query<{ late: string; early: string; notified: string }>(
			`SELECT count(*) FILTER (WHERE e.created_at > n.due_at + interval '60 seconds') AS late,
			        count(*) FILTER (WHERE e.created_at < n.due_at) AS early,
			        (SELECT count(*) FROM enrollments WHERE id = ANY($1) AND overdue_notified_at IS NOT NULL) AS notified
			 FROM events e JOIN enrollments n ON n.id = e.data::json->>'id'
			 WHERE e.type = 'enrollment.overdue' AND n.id = ANY($1)`,
			[ids],
		);
		expect(rows[0]).toEqual({ late: '0', early: '0', notified: '1500' });

		// The feed serves them like any event, with the record as the API shows it.
		const seen = new Set<string>();
		for (let after = ''; ; ) {
			const res = await fetch(`${instances[seen.size % 2].url}/api/v1/events?type=enrollment.overdue&limit=100${after ? `&after=${after}` : ''}`, {
				headers: { authorization: `Bearer ${key}` },
			});
			expect(res.status).toBe(200);
			const page = (await res.json()) as { data: Array<{ id: string; data: { object: { id: string; overdue: boolean } } }>; has_more: boolean };
			for (const e of page.data) {
				expect(e.data.object.overdue).toBe(true);
				expect(seen.has(e.data.object.id)).toBe(false);
				seen.add(e.data.object.id);
			}
			if (!page.has_more) break;
			after = page.data[page.data.length - 1].id;
		}
		expect(ids.every((id) => seen.has(id))).toBe(true);
		await Promise.all(instances.splice(0).map((i) => i.stop()));
	});

	test('an instance killed in the middle of a backlog: the next one finishes it, nothing lost, nothing repeated', async () => {
		const ids = await assign(4_000, new Date(Date.now() - 60_000), [13, 42]);
		const first = await startInstance(env(), undefined, 60_000);
		instances.push(first);
		// Kill it once it has told some but not all.
		await eventually('a first part told', async () => (await told(ids)).size > 0, 30_000);
		await first.stop(0);
		instances.splice(instances.indexOf(first), 1);
		const atCrash = await told(ids);
		expect(atCrash.size).toBeGreaterThan(0);
		expect(atCrash.size).toBeLessThan(ids.length);
		expect([...atCrash.values()].filter((n) => n !== 1)).toEqual([]);
		// What the database says is told is exactly what has its event (they commit together).
		const { rows } = await pg.query<{ n: string }>('SELECT count(*) AS n FROM enrollments WHERE id = ANY($1) AND overdue_notified_at IS NOT NULL', [ids]);
		expect(Number(rows[0].n)).toBe(atCrash.size);

		instances.push(await startInstance(env(), undefined, 60_000));
		await eventually('all 4,000 told', async () => (await told(ids)).size === ids.length, 150_000);
		const marker = await assign(1, new Date(Date.now() + 300), [43, 43]);
		await eventually('the marker is told', async () => (await told(marker)).size === 1);
		expect([...(await told(ids)).values()].filter((n) => n !== 1)).toEqual([]);
	});

	test('moving a told deadline to the future re-arms it; it is told again when that passes, once', async () => {
		if (instances.length < 2) instances.push(await startInstance(env(), undefined, 60_000));
		const [id] = await assign(1, new Date(Date.now() - 1_000), [44, 44]);
		await eventually('told', async () => (await told([id])).get(id) === 1);
		const res = await fetch(`${instances[0].url}/api/v1/enrollments/${id}`, {
			method: 'PATCH',
			headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
			body: JSON.stringify({ due_at: new Date(Date.now() + 1_500).toISOString() }),
		});
		expect(res.status).toBe(200);
		expect(((await res.json()) as { overdue: boolean }).overdue).toBe(false);
		await eventually('told again', async () => (await told([id])).get(id) === 2);
		const marker = await assign(1, new Date(Date.now() + 300), [45, 45]);
		await eventually('the marker is told', async () => (await told(marker)).size === 1);
		expect((await told([id])).get(id)).toBe(2);
	});
});
