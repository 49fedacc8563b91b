import { randomBytes } from 'node:crypto';

import { Client } from 'pg';
import { createClient } from 'redis';

import { runCli } from '../helpers/cli';
import { assertRedisReachable, createPostgresDatabase, redisTestUrl, type TestDatabase, onPostgres } from '../helpers/database';
import { startInstance, type Instance } from '../helpers/instances';
import { PageClient } from '../helpers/page-client';

/**
 * The deployment SPEC §7 and docs/production.md describe: two real `lms-server` processes
 * behind a load balancer, one PostgreSQL database, one Redis. The test plays the balancer: it
 * spreads requests over both instances and says who the client is in X-Forwarded-For, which
 * the instances trust from loopback only (TRUST_PROXY=loopback). Each scenario is its own
 * client IP, so each starts with a full budget of 100 requests.
 *
 * Part of `npm run test:postgres` (PostgreSQL and Redis required; a missing one fails the
 * suite with one line saying which).
 */

const LIMIT = 100;
const ALL_SCOPES = 'read:users,read:courses,read:enrollments,write:enrollments';

interface Reply {
	status: number;
	headers: Headers;
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	body: any;
}

async function hit(
	instance: Instance,
	path: string,
	opts: { ip: string; key?: string; method?: string; body?: unknown },
): Promise<Reply> {
	const headers: Record<string, string> = { 'x-forwarded-for': opts.ip };
	if (opts.key) headers.authorization = `Bearer ${opts.key}`;
	if (opts.body !== undefined) headers['content-type'] = 'application/json';
	const res = await fetch(`${instance.url}${path}`, {
		method: opts.method ?? 'GET',
		headers,
		body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
	});
	const text = await res.text();
	let body: unknown;
	try {
		body = JSON.parse(text);
	} catch {
		body = text;
	}
	return { status: res.status, headers: res.headers, body };
}

onPostgres(describe)('two instances, one PostgreSQL, one Redis', () => {
	let database: TestDatabase;
	let prefix: string;
	let env: Record<string, string>;
	const instances: Instance[] = [];
	let key: { id: string; key: string };
	let studentId: string;
	let courseId: string;
	let accounts: Array<{ email: string; password: string; organization: string; role: string }>;

	const cli = async (...args: string[]) => {
		const result = await runCli(args, { env: { DATABASE_URL: env.DATABASE_URL } });
		if (result.code !== 0) throw new Error(`lms-server ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
		return result.stdout;
	};

	beforeAll(async () => {
		await assertRedisReachable(redisTestUrl());
		database = await createPostgresDatabase();
		prefix = `lms:cluster:${randomBytes(6).toString('hex')}:`;
		env = {
			DATABASE_URL: database.databaseUrl,
			REDIS_URL: redisTestUrl(),
			RATE_LIMIT_REDIS_PREFIX: prefix,
			RATE_LIMIT_PER_MINUTE: String(LIMIT),
			TRUST_PROXY: 'loopback',
			NODE_ENV: 'production',
			SESSION_SECRET: randomBytes(32).toString('hex'),
		};

		// The deploy step: migrate once, seed, then start every instance with --no-migrate.
		expect(await cli('migrate')).toMatch(/^Applied 0001-initial/);
		const demo = JSON.parse(await cli('seed', '--demo', '--json')) as {
			organizations: Array<{ slug: string; id: string }>;
			accounts: typeof accounts;
		};
		accounts = demo.accounts;
		key = JSON.parse(await cli('keys', 'create', '--org', 'acme', '--label', 'cluster', '--scopes', ALL_SCOPES, '--json'));
		studentId = (JSON.parse(await cli('users', 'create', '--org', 'acme', '--email', 'racer@acme.test', '--name', 'Racer', '--role', 'student', '--json')) as { id: string }).id;
		const pg = new Client({ connectionString: database.databaseUrl });
		await pg.connect();
		try {
			const acme = demo.organizations.find((o) => o.slug === 'acme')!.id;
			const { rows } = await pg.query<{ id: string }>(
				"SELECT id FROM courses WHERE organization_id = $1 AND status = 'published' ORDER BY id LIMIT 1",
				[acme],
			);
			courseId = rows[0].id;
		} finally {
			await pg.end();
		}

		instances.push(...(await Promise.all([startInstance(env), startInstance(env)])));
		expect(instances[0].url).not.toBe(instances[1].url);
	});

	afterAll(async () => {
		const codes = await Promise.all(instances.map((i) => i.stop()));
		// SIGTERM drains and exits 0: nothing is left running.
		expect(codes).toEqual(instances.map(() => 0));
		if (database) await database.remove();
		if (prefix) {
			const redis = createClient({ url: redisTestUrl() });
			redis.on('error', () => undefined);
			await redis.connect();
			for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) {
				if (keys.length > 0) await redis.del(keys);
			}
			await redis.close();
		}
	});

	test('both are ready and report the shared store', async () => {
		for (const instance of instances) {
			const ready = await fetch(`${instance.url}/readyz`);
			expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', rate_limit_store: 'redis' } });
		}
	});

	test('(a) 100 requests from one IP spread over both instances; the 101st is 429 on either', async () => {
		const ip = '203.0.113.10';
		const replies = await Promise.all(
			Array.from({ length: LIMIT }, (_, n) => hit(instances[n % 2], '/api/v1/courses?per_page=1', { ip, key: key.key })),
		);
		expect(replies.map((r) => r.status)).toEqual(Array(LIMIT).fill(200));
		const remaining = replies.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => x - y);
		// One counter for the deployment: every request saw a different count.
		expect(remaining).toEqual(Array.from({ length: LIMIT }, (_, n) => n));

		for (const instance of instances) {
			const limited = await hit(instance, '/api/v1/courses?per_page=1', { ip, key: key.key });
			expect({ status: limited.status, code: limited.body.code }).toEqual({ status: 429, code: 'rate_limited' });
			expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
		}
		// Another client behind the same balancer is not affected.
		expect((await hit(instances[1], '/api/v1/courses?per_page=1', { ip: '203.0.113.11', key: key.key })).status).toBe(200);
	});

	test('(b) a key rotated through the CLI fails at once on both; its replacement works; revoked fails at once', async () => {
		const ip = '203.0.113.20';
		for (const instance of instances) expect((await hit(instance, '/api/v1/users?per_page=1', { ip, key: key.key })).status).toBe(200);

		const rotated = JSON.parse(await cli('keys', 'rotate', key.id, '--json')) as { id: string; key: string };
		for (const instance of instances) {
			const old = await hit(instance, '/api/v1/users?per_page=1', { ip, key: key.key });
			expect({ status: old.status, code: old.body.code }).toEqual({ status: 401, code: 'api_key_rotated' });
			expect((await hit(instance, '/api/v1/users?per_page=1', { ip, key: rotated.key })).status).toBe(200);
		}

		await cli('keys', 'revoke', rotated.id);
		for (const instance of instances) {
			const revoked = await hit(instance, '/api/v1/users?per_page=1', { ip, key: rotated.key });
			expect({ status: revoked.status, code: revoked.body.code }).toEqual({ status: 401, code: 'api_key_revoked' });
			const old = await hit(instance, '/api/v1/users?per_page=1', { ip, key: key.key });
			expect(old.body.code).toBe('api_key_rotated');
		}
		key = JSON.parse(await cli('keys', 'create', '--org', 'acme', '--label', 'cluster 2', '--scopes', ALL_SCOPES, '--json'));
	});

	test('(c) 100 concurrent identical enrollment POSTs over both: exactly one 201, 99 × 409 naming it, no 5xx', async () => {
		const ip = '203.0.113.30';
		const body = { student_id: studentId, course_id: courseId };
		const replies = await Promise.all(
			Array.from({ length: 100 }, (_, n) => hit(instances[n % 2], '/api/v1/enrollments', { ip, key: key.key, method: 'POST', body })),
		);
		const byStatus = new Map<number, number>();
		for (const r of replies) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
		expect(Object.fromEntries(byStatus)).toEqual({ 201: 1, 409: 99 });
		const created = replies.find((r) => r.status === 201)!;
		expect(created.body).toMatchObject({ student_id: studentId, course_id: courseId, status: 'active', progress_percent: 0 });
		for (const r of replies.filter((x) => x.status === 409)) {
			expect(r.body).toMatchObject({ code: 'already_enrolled', enrollment_id: created.body.id });
		}
		const listed = await hit(instances[1], `/api/v1/enrollments?student_id=${studentId}`, { ip: '203.0.113.31', key: key.key });
		expect(listed.body.pagination.total).toBe(1);
	});
	test('(d) failed sign-ins for one account count on both instances: of 20 concurrent guesses over both, exactly 10 are checked', async () => {
		const { email, password } = accounts.find((a) => a.organization === 'globex' && a.role === 'super_admin')!;
		const pages = await Promise.all(
			Array.from({ length: 20 }, async (_, i) => {
				// Distinct loopback source addresses: distinct client IPs, with no X-Forwarded-For.
				const client = new PageClient(instances[i % 2].url, `127.0.1.${10 + i}`);
				const form = await client.get('/login');
				return client.post('/login', { email, password: `guess-${i}`, _csrf: PageClient.csrfToken(form) });
			}),
		);
		const outcomes = pages.map((p) => PageClient.signInOutcome(p));
		expect(outcomes.filter((s) => s === 'refused')).toHaveLength(10);
		expect(outcomes.filter((s) => s === 'throttled')).toHaveLength(10);
		for (const instance of instances) {
			const owner = await new PageClient(instance.url, '127.0.1.99').signIn(email, password);
			expect(owner.status).toBe(429);
			expect(Number(owner.headers['retry-after'])).toBeGreaterThan(0);
		}
	});
});
