import { startTestServer, type TestServer } from '../helpers/server';
import { buildWorld, call, expectProblem, type World } from './api-fixtures';

const LIMIT = 5;

function expectLimited(reply: Awaited<ReturnType<typeof call>>) {
	expectProblem(reply, 429, 'rate_limited');
	const retryAfter = Number(reply.headers.get('retry-after'));
	expect(retryAfter).toBeGreaterThanOrEqual(1);
	expect(retryAfter).toBeLessThanOrEqual(60);
	expect(reply.body.detail).toContain(`${retryAfter} seconds`);
	expect(reply.headers.get('ratelimit')).toMatch(/; r=0; t=\d+$/);
	expect(reply.headers.get('ratelimit-policy')).toMatch(new RegExp(`; q=${LIMIT}; w=60;`));
	expect(reply.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
	expect(reply.headers.get('x-ratelimit-remaining')).toBe('0');
}

describe('one process, in-memory store, no proxy trusted', () => {
	let server: TestServer;
	let world: World;
	beforeAll(async () => {
		server = await startTestServer({ seed: false, env: { RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
		world = await buildWorld();
	});
	afterAll(() => server.stop());

	test('the limit+1th request of an IP → 429, whatever it was: good key, bad key, no key, settings page, 404', async () => {
		const first = await call(server, '/api/v1/users', { key: world.keys.all });
		expect(first.status).toBe(200);
		expect(first.headers.get('ratelimit')).toMatch(new RegExp(`; r=${LIMIT - 1}; t=\\d+$`));
		expect(first.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1));
		expect((await call(server, '/api/v1/users', { key: 'lms_bad' })).status).toBe(401);
		expect((await call(server, '/api/v1/users')).status).toBe(401);
		expect((await call(server, '/login')).status).toBeLessThan(500);
		expect((await call(server, '/api/v1/nowhere', { key: world.keys.all })).status).toBe(404);

		expectLimited(await call(server, '/api/v1/users', { key: world.keys.all }));
		expectLimited(await call(server, '/api/v1/openapi.json'));
		expectLimited(await call(server, '/login'));
		expectLimited(await call(server, '/api/v1/enrollments', { method: 'POST', key: world.keys.all, body: {} }));
	});

	test('health checks are neither counted nor refused', async () => {
		for (let i = 0; i < LIMIT + 2; i++) {
			const [health, ready] = await Promise.all([call(server, '/healthz'), call(server, '/readyz')]);
			expect([health.status, ready.status]).toEqual([200, 200]);
			expect(health.headers.get('ratelimit')).toBeNull();
		}
	});

	test('X-Forwarded-For is ignored unless TRUST_PROXY says otherwise', async () => {
		const reply = await call(server, '/api/v1/users', { key: world.keys.all, headers: { 'x-forwarded-for': '203.0.113.9' } });
		expectLimited(reply);
	});
});

describe('behind a trusted proxy (TRUST_PROXY=loopback)', () => {
	let server: TestServer;
	let world: World;
	beforeAll(async () => {
		server = await startTestServer({ seed: false, env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'loopback' } });
		world = await buildWorld();
	});
	afterAll(() => server.stop());

	test('each client IP named by the proxy has its own budget', async () => {
		const as = (ip: string) => call(server, '/api/v1/courses', { key: world.keys.all, headers: { 'x-forwarded-for': ip } });
		for (let i = 0; i < LIMIT; i++) expect((await as('198.51.100.1')).status).toBe(200);
		expectLimited(await as('198.51.100.1'));
		expect((await as('198.51.100.2')).status).toBe(200);
		// IPv6 clients are grouped by /56: another address in the same /56 shares the budget.
		for (let i = 0; i < LIMIT; i++) expect((await as(`2001:db8:0:1${i}::1`)).status).toBe(200);
		expectLimited(await as('2001:db8:0:ff::2'));
	});

	test('Link URLs follow the forwarded protocol only from a trusted proxy', async () => {
		const reply = await call(server, '/api/v1/courses', {
			key: world.keys.all,
			headers: { 'x-forwarded-for': '198.51.100.77', 'x-forwarded-proto': 'https' },
		});
		expect(reply.headers.get('link')).toMatch(/^<https:\/\//);
	});
});

describe('the window resets', () => {
	let server: TestServer;
	beforeAll(async () => {
		server = await startTestServer({ seed: false, env: { RATE_LIMIT_PER_MINUTE: '2', RATE_LIMIT_WINDOW_MS: '1000' } });
	});
	afterAll(() => server.stop());

	test('after Retry-After seconds the client may call again', async () => {
		await call(server, '/api/v1/openapi.json');
		await call(server, '/api/v1/openapi.json');
		const limited = await call(server, '/api/v1/openapi.json');
		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toBe('1');
		await new Promise((r) => setTimeout(r, 1100));
		expect((await call(server, '/api/v1/openapi.json')).status).toBe(200);
	});
});
