import { Client } from 'pg';

import { connect, User, type Database } from '../../server/src/db';
import { writeTransaction } from '../../server/src/db/write-transaction';
import { recordEvent } from '../../server/src/events/record';
import { serializeUser } from '../../server/src/users/serialize';
import { runCli } from '../helpers/cli';
import { createPostgresDatabase, type TestDatabase, onPostgres } from '../helpers/database';
import { startInstance, type Instance } from '../helpers/instances';

/**
 * SPEC §11's promise under the conditions that break naive feeds: two `lms-server` instances on
 * one PostgreSQL, many writers over both, and transactions held open on purpose after writing
 * their event (so that events with larger ids commit first). A reader that always passes the
 * last id it received must end with every committed event exactly once, in id order, and
 * nothing from a transaction that rolled back.
 *
 * The held transactions write through the server's own code (User.create + recordEvent in one
 * transaction, as createUser does), from this process's own connection to the same database.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface FeedEvent {
	id: string;
	type: string;
	data: { object: { id: string } };
}

onPostgres(describe)('the event feed with writers on two instances and transactions held open', () => {
	let database: TestDatabase;
	let db: Database;
	let pg: Client;
	const instances: Instance[] = [];
	let key: string;
	let globexKey: string;
	let acmeId: string;
	let globexId: string;
	let pairs: Array<{ student: string; course: string }>;

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
		globexId = demo.organizations.find((o) => o.slug === 'globex')!.id;
		globexKey = (JSON.parse(await cli('keys', 'create', '--org', 'globex', '--label', 'feed', '--scopes', 'read:users,write:users', '--json')) as { key: string }).key;
		key = (JSON.parse(await cli('keys', 'create', '--org', 'acme', '--label', 'feed', '--scopes', 'read:users,read:enrollments,write:enrollments', '--json')) as { key: string }).key;

		pg = new Client({ connectionString: database.databaseUrl });
		await pg.connect();
		// Students and published courses not yet paired: each POST of one of them is a 201.
		const { rows } = await pg.query<{ student: string; course: string }>(
			`SELECT u.id AS student, c.id AS course FROM users u CROSS JOIN courses c
			 WHERE u.organization_id = $1 AND c.organization_id = $1 AND u.role = 'student' AND c.status = 'published'
			   AND NOT EXISTS (SELECT 1 FROM enrollments e WHERE e.student_id = u.id AND e.course_id = c.id)
			 ORDER BY u.id, c.id LIMIT 160`,
			[acmeId],
		);
		pairs = rows;
		expect(pairs).toHaveLength(160);

		db = await connect({ databaseUrl: database.databaseUrl, poolMax: 10 });
		const env = { DATABASE_URL: database.databaseUrl, RATE_LIMIT_PER_MINUTE: '1000000', DATABASE_POOL_MAX: '10' };
		instances.push(...(await Promise.all([startInstance(env), startInstance(env)])));
	});

	afterAll(async () => {
		await Promise.all(instances.map((i) => i.stop()));
		await db?.close();
		await pg?.end();
		await database?.remove();
	});

	test('every committed event exactly once, in id order, numbered 1, 2, 3… per organization without a gap; none from rolled-back transactions or another organization', async () => {
		let expected = 0;
		const api = async (n: number, path: string, method = 'GET', body?: unknown) => {
			const res = await fetch(`${instances[n % 2].url}${path}`, {
				method,
				headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
				body: body ? JSON.stringify(body) : undefined,
			});
			return { status: res.status, body: (await res.json()) as { id: string } & Record<string, unknown> };
		};

		// Writers: 8 workers over both instances. Each pair is enrolled, sometimes progressed, often completed.
		const queue = [...pairs.entries()];
		const writer = async (w: number) => {
			for (let next = queue.shift(); next; next = queue.shift()) {
				const [i, pair] = next;
				const created = await api(i + w, '/api/v1/enrollments', 'POST', { student_id: pair.student, course_id: pair.course });
				expect(created.status).toBe(201);
				expected += 1;
				if (i % 3 !== 0) {
					expect((await api(i + w + 1, `/api/v1/enrollments/${created.body.id}`, 'PATCH', { progress_percent: 10 + (i % 80) })).status).toBe(200);
					expected += 1;
				}
				if (i % 2 === 0) {
					expect((await api(i + w, `/api/v1/enrollments/${created.body.id}`, 'PATCH', { status: 'completed' })).status).toBe(200);
					expected += 2;
				}
			}
		};

		// Held transactions: write a user and its event, then stay open while the writers commit
		// theirs; one in three rolls back.
		const held: Array<{ userId: string; overtaken: number; committed: boolean }> = [];
		const committedEvents = async () => Number((await pg.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE organization_id = $1', [acmeId])).rows[0].n);
		const holder = async (h: number) => {
			await sleep(150 * h);
			const outcome = { userId: '', overtaken: 0, committed: h % 3 !== 2 };
			await writeTransaction(db, async (transaction) => {
				const user = await User.create(
					{ organizationId: acmeId, name: `Held ${h}`, email: `held${h}@acme.test`, role: 'student', passwordHash: null },
					{ transaction },
				);
				await recordEvent(transaction, { organizationId: acmeId, type: 'user.created', object: serializeUser(user) });
				outcome.userId = user.id;
				const before = await committedEvents();
				await sleep(1200);
				// Proof that the hold matters: events written after this one have committed meanwhile,
				// so a feed in the order events were written would have served them and skipped this one.
				outcome.overtaken = (await committedEvents()) - before;
				if (!outcome.committed) throw new Error('rolled back on purpose');
			}).catch((err: Error) => {
				if (err.message !== 'rolled back on purpose') throw err;
			});
			if (outcome.committed) expected += 1;
			held.push(outcome);
		};

		// The reader: polls with the last id it received, alternating instances.
		const received: FeedEvent[] = [];
		let writing = true;
		const reader = async () => {
			let after = '';
			for (let n = 0; ; n++) {
				const reply = await api(n, `/api/v1/events?limit=100${after ? `&after=${after}` : ''}`);
				expect(reply.status).toBe(200);
				const page = reply.body as unknown as { data: FeedEvent[]; has_more: boolean };
				received.push(...page.data);
				if (page.data.length > 0) after = page.data[page.data.length - 1].id;
				if (!writing && !page.has_more && received.length >= expected) return;
				if (!page.has_more) await sleep(20);
			}
		};

		// Another organization writing at the same time over both instances: its events take numbers
		// of its own, and none of them shows in acme's feed or moves acme's numbers.
		const otherWriter = async (w: number) => {
			for (let n = 0; n < 10; n++) {
				const res = await fetch(`${instances[(n + w) % 2].url}/api/v1/users`, {
					method: 'POST',
					headers: { authorization: `Bearer ${globexKey}`, 'content-type': 'application/json' },
					body: JSON.stringify({ name: `Globex ${w}-${n}`, email: `feed${w}-${n}@globex.test`, role: 'student' }),
				});
				expect(res.status).toBe(201);
			}
		};

		const reading = reader();
		await Promise.all([
			...Array.from({ length: 8 }, (_, w) => writer(w)),
			...Array.from({ length: 9 }, (_, h) => holder(h)),
			...Array.from({ length: 4 }, (_, w) => otherWriter(w)),
		]);
		writing = false;
		let timer: NodeJS.Timeout | undefined;
		const stuck = new Promise((_, reject) => {
			timer = setTimeout(() => reject(new Error(`reader stuck at ${received.length} of ${expected}`)), 60_000);
		});
		await Promise.race([reading, stuck]).finally(() => clearTimeout(timer));

		const ids = received.map((e) => e.id);
		expect(new Set(ids).size).toBe(ids.length); // never twice
		expect(ids).toEqual([...ids].sort()); // in id order
		expect(ids.length).toBe(expected); // the count equals the changes made
		const { rows: stored } = await pg.query<{ id: string }>('SELECT id FROM events WHERE organization_id = $1 ORDER BY id', [acmeId]);
		expect(ids).toEqual(stored.map((r) => r.id)); // none missed
		// Each organization counts its own events 1, 2, 3… without a gap, whatever the other wrote
		// meanwhile and whichever transactions rolled back (SPEC §11, issue 39: numbered at commit).
		const numbers = async (organization: string) =>
			(await pg.query<{ id: string }>('SELECT id FROM events WHERE organization_id = $1 ORDER BY id', [organization])).rows.map((r) => Number(r.id.slice(-16)));
		const acmeNumbers = await numbers(acmeId);
		expect(acmeNumbers).toEqual(acmeNumbers.map((_, i) => i + 1));
		const globexNumbers = await numbers(globexId);
		expect(globexNumbers.length).toBeGreaterThanOrEqual(40);
		expect(globexNumbers).toEqual(globexNumbers.map((_, i) => i + 1));
		expect(received.some((e) => JSON.stringify(e).includes('@globex.test'))).toBe(false);
		// The rolled-back ones never showed, and the held ones did, once.
		for (const h of held) expect([h.userId, received.filter((e) => e.data.object.id === h.userId).length]).toEqual([h.userId, h.committed ? 1 : 0]);
		expect(held.filter((h) => h.committed && h.overtaken > 0).length).toBeGreaterThan(0);
		expect(received.filter((e) => e.type === 'user.created').map((e) => e.data.object.id)).toHaveLength(held.filter((h) => h.committed).length);
	}, 180_000);

	test('50 concurrent completions of one enrollment over both instances: one certificate, one enrollment.completed', async () => {
		// The last pair was enrolled above and left active (an odd index is never completed there).
		const pair = pairs[pairs.length - 1];
		const post = await fetch(`${instances[0].url}/api/v1/enrollments`, {
			method: 'POST',
			headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
			body: JSON.stringify({ student_id: pair.student, course_id: pair.course }),
		});
		const existing = (await post.json()) as { id?: string; enrollment_id?: string };
		const id = existing.id ?? existing.enrollment_id!;
		const replies = await Promise.all(
			Array.from({ length: 50 }, (_, n) =>
				fetch(`${instances[n % 2].url}/api/v1/enrollments/${id}`, {
					method: 'PATCH',
					headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
					body: JSON.stringify(n % 3 ? { status: 'completed' } : { progress_percent: 100 }),
				}).then(async (r) => ({ status: r.status, body: (await r.json()) as { completed_at: string } })),
			),
		);
		expect(replies.map((r) => r.status)).toEqual(Array(50).fill(200));
		expect(new Set(replies.map((r) => r.body.completed_at)).size).toBe(1);
		const { rows: certificates } = await pg.query('SELECT id FROM certificates WHERE enrollment_id = $1', [id]);
		expect(certificates).toHaveLength(1);
		const { rows: events } = await pg.query<{ type: string }>(
			"SELECT type FROM events WHERE data LIKE $1 AND type IN ('enrollment.completed', 'certificate.issued') ORDER BY id",
			[`%${id}%`],
		);
		expect(events.map((e) => e.type)).toEqual(['enrollment.completed', 'certificate.issued']);
	});
});
