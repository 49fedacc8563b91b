import http from 'node:http';

import { ConfigError, loadConfig } from '../../server/src/config';
import type { TestServer } from '../helpers/server';
import { call, feedCaughtUp, NO_LIMIT, startApiServer, type World } from './api-fixtures';
import { USER } from './scim-fixtures';

/**
 * SPEC §22: links and SCIM `meta.location` use PUBLIC_URL when set, never the request's Host
 * (issue 39's informational finding: a client's forged Host came back in Link headers and SCIM
 * locations, where a cache or a log reader would follow it).
 */

const PUBLIC = 'https://lms.example.test/base';

/** A GET whose Host header says what a client forged; fetch would not let us set it. */
function forged(server: TestServer, path: string, key: string, method = 'GET', body?: unknown): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
	const url = new URL(path, server.baseUrl);
	const payload = body === undefined ? undefined : JSON.stringify(body);
	return new Promise((resolve, reject) => {
		const req = http.request(
			{
				host: url.hostname,
				port: url.port,
				path: url.pathname + url.search,
				method,
				headers: { host: 'evil.example', authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/scim+json' } : {}) },
			},
			(res) => {
				let text = '';
				res.setEncoding('utf8');
				res.on('data', (chunk: string) => (text += chunk));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
			},
		);
		req.on('error', reject);
		req.end(payload);
	});
}

describe('with PUBLIC_URL', () => {
	let server: TestServer;
	let world: World;
	let scimKey: string;
	beforeAll(async () => {
		({ server, world } = await startApiServer({ ...NO_LIMIT, PUBLIC_URL: `${PUBLIC}/` }));
		scimKey = (await server.createKey('acme', ['read:users', 'write:users'], 'idp')).key;
	});
	afterAll(() => server.stop());

	test('list Link headers start with it, whatever Host the client sent', async () => {
		const reply = await forged(server, '/api/v1/users?per_page=1', world.keys.all);
		expect(reply.status).toBe(200);
		expect(reply.headers.link).toContain(`<${PUBLIC}/api/v1/users?`);
		expect(reply.headers.link).not.toContain('evil.example');
	});

	test('the feed\'s next link starts with it', async () => {
		for (const name of ['Public URL one', 'Public URL two']) expect((await call(server, '/api/v1/groups', { method: 'POST', key: world.keys.all, body: { name } })).status).toBe(201);
		await feedCaughtUp(server, world.keys.all, world.acme.id);
		const reply = await forged(server, '/api/v1/events?limit=1', world.keys.all);
		expect(reply.status).toBe(200);
		expect(reply.headers.link).toMatch(new RegExp(`^<${PUBLIC.replace(/[.]/g, '\\.')}/api/v1/events\\?`));
	});

	test('SCIM meta.location and Location start with it', async () => {
		const list = await forged(server, '/scim/v2/Users?count=1', scimKey);
		expect(list.status).toBe(200);
		const [user] = JSON.parse(list.body).Resources as Array<{ id: string; meta: { location: string } }>;
		expect(user.meta.location).toBe(`${PUBLIC}/scim/v2/Users/${user.id}`);
		const created = await forged(server, '/scim/v2/Users', scimKey, 'POST', { schemas: [USER], userName: 'public.url@acme.example', name: { givenName: 'Pub', familyName: 'Lic' } });
		expect(created.status).toBe(201);
		expect(created.headers.location).toMatch(new RegExp(`^${PUBLIC.replace(/[.]/g, '\\.')}/scim/v2/Users/usr_`));
		expect(created.body).not.toContain('evil.example');
	});
});

test('without PUBLIC_URL, links follow the request as before', async () => {
	const { server, world } = await startApiServer();
	try {
		const reply = await forged(server, '/api/v1/users?per_page=1', world.keys.all);
		expect(reply.headers.link).toContain('<http://evil.example/api/v1/users?');
	} finally {
		await server.stop();
	}
});

test.each(['ftp://lms.example.test', 'lms.example.test', 'https://lms.example.test/?x=1'])('PUBLIC_URL=%s is refused, naming the variable', (value) => {
	expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(ConfigError);
	expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(/^PUBLIC_URL: /);
});
