import type { TestServer } from '../helpers/server';
import { call, expectProblem, startApiServer, type World } from './api-fixtures';

/** SPEC §14: reserved names are unknown parameters; answers are never cached; errors stay small. */

let server: TestServer;
let world: World;
beforeAll(async () => ({ server, world } = await startApiServer()));
afterAll(() => server.stop());

describe('__proto__, constructor and prototype are unknown parameters like any other', () => {
	test.each(['__proto__', 'constructor', 'prototype', '__proto__[role]', 'constructor[prototype]'])('?%s=x → 400', async (name) => {
		for (const path of ['/api/v1/users', '/api/v1/courses', '/api/v1/enrollments', '/api/v1/certificates']) {
			const reply = await call(server, `${path}?${encodeURIComponent(name)}=x`, { key: world.keys.all });
			expectProblem(reply, 400, 'invalid_request');
			expect(reply.body.errors).toEqual([expect.objectContaining({ param: name, code: 'unknown_parameter' })]);
		}
	});

	test('next to valid filters, the reserved name is still refused', async () => {
		const reply = await call(server, '/api/v1/users?role=student&__proto__=admin&page=1', { key: world.keys.all });
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors).toEqual([expect.objectContaining({ param: '__proto__', code: 'unknown_parameter' })]);
	});

	test.each(['__proto__', 'constructor', 'prototype'])('a %s body field → 400 unknown_field', async (name) => {
		// Written by hand: JSON.stringify of an object literal would not carry an own __proto__.
		const body = `{"student_id":"${world.users.alice.id}","course_id":"${world.courses.intro.id}","${name}":{"role":"admin"}}`;
		const reply = await call(server, '/api/v1/enrollments', { method: 'POST', key: world.keys.all, body });
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors).toEqual([expect.objectContaining({ param: name, code: 'unknown_field' })]);
	});
});

describe('Cache-Control: no-store on every API answer', () => {
	test.each([
		['a list', '/api/v1/users', 'all', 200],
		['a record', '/api/v1/courses/COURSE', 'all', 200],
		['the OpenAPI document', '/api/v1/openapi.json', 'all', 200],
		['a 400', '/api/v1/users?page=0', 'all', 400],
		['a 401', '/api/v1/users', undefined, 401],
		['a 403', '/api/v1/users', 'readCourses', 403],
		['a 404', '/api/v1/users/usr_doesnotexist', 'all', 404],
		['an unknown path', '/api/v1/nope', 'all', 404],
	] as const)('%s', async (_what, path, key, status) => {
		const reply = await call(server, path.replace('COURSE', world.courses.intro.id), { key: key && world.keys[key] });
		expect(reply.status).toBe(status);
		expect(reply.headers.get('cache-control')).toBe('no-store');
	});
});

describe('a huge bad query gets a small answer', () => {
	test('7 KB of unknown parameters: 400 naming the count, at most 10 entries, a few KB at most', async () => {
		const query = Array.from({ length: 900 }, (_, i) => `p${i}=x`).join('&');
		expect(query.length).toBeGreaterThan(5000);
		const reply = await call(server, `/api/v1/users?${query}`, { key: world.keys.all });
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors).toHaveLength(10);
		expect(reply.body.detail).toMatch(/^The request has 900 problems: .*\(and 890 more, not listed\)$/);
		expect(reply.text.length).toBeLessThan(8000);
	});

	test('a 7 KB parameter name is echoed only in part', async () => {
		const name = 'n'.repeat(7000);
		const reply = await call(server, `/api/v1/users?${name}=1`, { key: world.keys.all });
		expectProblem(reply, 400, 'invalid_request');
		expect(reply.body.errors[0].param).toMatch(/^n{63}…$/);
		expect(reply.body.errors[0].message).toMatch(/^Unknown query parameter n{63}…: this endpoint accepts page, per_page, email, role, status, external_id, group_id, department, search\.$/);
		expect(reply.text.length).toBeLessThan(2000);
	});
});
