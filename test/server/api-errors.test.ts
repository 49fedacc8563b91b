import { database } from '../../server/src/db';
import type { TestServer } from '../helpers/server';
import { call, expectProblem, startApiServer, type World } from './api-fixtures';

let server: TestServer;
let world: World;
beforeAll(async () => ({ server, world } = await startApiServer()));
afterAll(() => server.stop());
afterEach(() => jest.restoreAllMocks());

describe('404 not_found for unknown paths under /api/', () => {
	test.each(['/api', '/api/', '/api/v1', '/api/v2/users', '/api/v1/nope', '/api/v1/users/x/y', '/api/v1/openapi.yaml'])('%s', async (path) => {
		expectProblem(await call(server, path, { key: world.keys.all }), 404, 'not_found');
	});

	test('without a key too (routing does not depend on authentication)', async () => {
		expectProblem(await call(server, '/api/v1/nope'), 404, 'not_found');
	});
});

describe('405 method_not_allowed with Allow', () => {
	test.each([
		['DELETE', '/api/v1/users', 'GET, POST'],
		['PUT', '/api/v1/users', 'GET, POST'],
		['PUT', '/api/v1/users/usr_x', 'GET, PATCH'],
		['PATCH', '/api/v1/courses', 'GET'],
		['DELETE', '/api/v1/courses/crs_x', 'GET'],
		['PUT', '/api/v1/enrollments', 'GET, POST'],
		['DELETE', '/api/v1/enrollments/enr_x', 'GET, PATCH'],
		['POST', '/api/v1/events', 'GET'],
		['DELETE', '/api/v1/events/evt_x', 'GET'],
		['POST', '/api/v1/certificates', 'GET'],
		['PATCH', '/api/v1/certificates/cert_x', 'GET'],
		['POST', '/api/v1/openapi.json', 'GET'],
	])('%s %s → Allow: %s', async (method, path, allow) => {
		for (const key of [world.keys.all, undefined]) {
			const reply = await call(server, path, { method, key });
			expectProblem(reply, 405, 'method_not_allowed');
			expect(reply.headers.get('allow')).toBe(allow);
		}
	});
});

describe('X-Request-Id', () => {
	test('a sane incoming id is echoed on the response and in the problem body', async () => {
		const reply = await call(server, '/api/v1/users', { headers: { 'x-request-id': 'trace-42.a:b_c' } });
		expect(reply.headers.get('x-request-id')).toBe('trace-42.a:b_c');
		expect(reply.body.request_id).toBe('trace-42.a:b_c');
	});

	test.each([
		['too long', 'a'.repeat(129)],
		['odd characters', 'abc def<script>'],
		['a newline smuggled as an encoded value', 'abc%0d%0aSet-Cookie:x'],
	])('an insane one (%s) is replaced by a generated id', async (_name, incoming) => {
		const reply = await call(server, '/api/v1/users', { key: world.keys.all, headers: { 'x-request-id': incoming } });
		expect(reply.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9]{20}$/);
	});

	test('every response carries one, success, error, health and unknown paths alike', async () => {
		for (const [path, key] of [
			['/api/v1/users', world.keys.all],
			['/api/v1/users', undefined],
			['/healthz', undefined],
			['/nowhere', undefined],
			['/api/v1/openapi.json', undefined],
		] as const) {
			const reply = await call(server, path, { key });
			expect(reply.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9]{20}$/);
		}
	});

	test('two requests get different ids', async () => {
		const [a, b] = await Promise.all([call(server, '/healthz'), call(server, '/healthz')]);
		expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
	});
});

describe('500 internal_error', () => {
	test('a failing query answers a bare problem; the log has the error and the request id', async () => {
		const sqlError = Object.assign(new Error('SQLITE_ERROR: no such column: secret_sauce'), {
			sql: 'SELECT id FROM users WHERE secret_sauce = 1',
		});
		jest.spyOn(database(), 'read').mockRejectedValue(sqlError);
		const reply = await call(server, '/api/v1/users', { key: world.keys.all, headers: { 'x-request-id': 'boom-1' } });
		expectProblem(reply, 500, 'internal_error');
		expect(reply.text).not.toMatch(/SQLITE|secret_sauce|SELECT|stack|\.ts:/);
		const logged = server
			.logs()
			.split('\n')
			.filter((l) => l.includes('"boom-1"'))
			.map((l) => JSON.parse(l));
		expect(logged.some((l) => l.level >= 50 && l.err?.message?.includes('no such column'))).toBe(true);
		expect(server.logs()).not.toContain('SELECT id FROM users WHERE secret_sauce');
	});

	test('a thrown non-Error value is a 500 too', async () => {
		jest.spyOn(database(), 'read').mockImplementation(() => {
			// eslint-disable-next-line @typescript-eslint/only-throw-error -- the point: a thrown non-Error
			throw 'a string';
		});
		expectProblem(await call(server, `/api/v1/users/${world.users.alice.id}`, { key: world.keys.all }), 500, 'internal_error');
	});
});

describe('health checks', () => {
	test('/healthz is live', async () => {
		const reply = await call(server, '/healthz');
		expect(reply.status).toBe(200);
		expect(reply.body).toEqual({ status: 'ok' });
	});

	test('/readyz reports the database and the limit store', async () => {
		const reply = await call(server, '/readyz');
		expect(reply.status).toBe(200);
		expect(reply.body).toEqual({ status: 'ready', checks: { database: 'ok', rate_limit_store: server.limitStore } });
	});

	test('/readyz answers 503 problem+json when the database is unreachable', async () => {
		jest.spyOn(database(), 'read').mockRejectedValue(new Error('SQLITE_CANTOPEN: unable to open database file'));
		const reply = await call(server, '/readyz');
		expectProblem(reply, 503, 'not_ready');
		expect(reply.body.checks).toEqual({ database: 'unreachable' });
		expect(reply.text).not.toContain('SQLITE');
	});
});

describe('security headers', () => {
	test('API responses are not framable, sniffable or scripted, and do not name the framework', async () => {
		const reply = await call(server, '/api/v1/users', { key: world.keys.all });
		expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
		expect(reply.headers.get('content-security-policy')).toContain("default-src 'none'");
		expect(reply.headers.get('x-powered-by')).toBeNull();
	});

	test('API answers carry the headers that protect a non-document response, and only those', async () => {
		for (const reply of [await call(server, '/api/v1/users', { key: world.keys.all }), await call(server, '/api/v1/nothing-here', { key: world.keys.all })]) {
			expect(reply.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
			expect(reply.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
			expect(reply.headers.get('x-frame-options')).toBe('SAMEORIGIN');
			expect(reply.headers.get('cross-origin-resource-policy')).toBe('same-origin');
			expect(reply.headers.get('x-permitted-cross-domain-policies')).toBe('none');
			expect(reply.headers.get('cache-control')).toBe('no-store');
			// What only steers a browser rendering a document is left to the settings pages.
			for (const name of ['referrer-policy', 'cross-origin-opener-policy', 'origin-agent-cluster', 'x-dns-prefetch-control', 'x-download-options', 'x-xss-protection']) {
				expect({ name, value: reply.headers.get(name) }).toEqual({ name, value: null });
			}
		}
	});
});

describe('secrets', () => {
	test('no key secret appears in the logs, even when sent in the URL', async () => {
		await call(server, '/api/v1/users', { key: world.keys.all });
		await call(server, '/api/v1/users', { key: world.keys.readCourses });
		await call(server, `/api/v1/users?api_key=${world.keys.globex}`, { key: world.keys.globex });
		await call(server, '/api/v1/nope', { key: world.keys.all, headers: { cookie: 'lms_session=abc' } });
		const logs = server.logs();
		expect(logs.length).toBeGreaterThan(0);
		for (const secret of Object.values(world.keys)) expect(logs).not.toContain(secret);
		expect(logs).not.toMatch(/lms_[0-9A-Za-z]{38}/);
		expect(logs.toLowerCase()).not.toContain('bearer');
		expect(logs).not.toContain('lms_session=abc');
	});

	test('no key secret is stored in the database (SQLite files and WAL, or PostgreSQL rows)', async () => {
		const bytes = await server.storedBytes();
		expect(bytes.length).toBeGreaterThan(0);
		for (const secret of Object.values(world.keys)) {
			expect(bytes.includes(Buffer.from(secret))).toBe(false);
			// Not even the random part without its prefix.
			expect(bytes.includes(Buffer.from(secret.slice(4, 36)))).toBe(false);
		}
	});
});
