/**
 * The LMS API credential's test as a person meets it in n8n's editor ("Save" / "Retry" call
 * POST /rest/credentials/test): it passes for any working key of an LMS, and fails for anything
 * else (SPEC §9, §15): with the LMS's own sentence for a key that cannot work, with what to do
 * when something else answers, and with n8n's own network error code when nothing answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { freePort } from '../helpers/ports';
import { startTestServer, type TestServer } from '../helpers/server';
import { N8nHome, type N8nServer } from './n8n';

let lms: TestServer;
let home: N8nHome;
let n8n: N8nServer;
let foreign: Server;
let foreignUrl: string;

/** A server that is not an LMS: a web page, another vendor's JSON API, and a bare 404. */
function startForeignServer(): Promise<Server> {
	const server = createServer((req, res) => {
		if (req.url?.startsWith('/html')) {
			res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Welcome</title><h1>Our intranet</h1>');
		} else if (req.url?.startsWith('/other-api')) {
			res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized","message":"Bad token"}');
		} else {
			res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
		}
	});
	return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const test = (baseUrl: string, apiKey: string) => n8n.testCredential('lmsApi', { baseUrl, apiKey });

/** What the LMS itself says to a request with this key. */
async function detailFor(apiKey: string): Promise<string> {
	const response = await fetch(`${lms.baseUrl}/api/v1/users`, { headers: { Authorization: `Bearer ${apiKey}` } });
	return ((await response.json()) as { detail: string }).detail;
}

beforeAll(async () => {
	lms = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	foreign = await startForeignServer();
	foreignUrl = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
	home = await N8nHome.create();
	n8n = await home.start();
}, 600_000);

afterAll(async () => {
	await n8n?.stop();
	home?.remove();
	foreign?.close();
	await lms?.stop();
});

describe('passes for a working key of an LMS', () => {
	it('with every scope', async () => {
		const { key } = await lms.createKey('acme', ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments'], 'all');
		expect(await test(lms.baseUrl, key)).toMatchObject({ status: 'OK' });
	});

	it('with one scope that is not read:users, and with a pasted /api/v1 and trailing slash', async () => {
		const { key } = await lms.createKey('acme', ['manage:webhooks'], 'webhooks only');
		expect(await test(lms.baseUrl, key)).toMatchObject({ status: 'OK' });
		expect(await test(`${lms.baseUrl}/api/v1/`, key)).toMatchObject({ status: 'OK' });
	});
});

describe('fails with the LMS’s own words for a key that cannot work', () => {
	it('an unknown key', async () => {
		const result = await test(lms.baseUrl, 'lms_unknownKeyOfNoOne000000000000000');
		expect(result).toEqual({ status: 'Error', message: await detailFor('lms_unknownKeyOfNoOne000000000000000') });
	});

	it('a revoked key, and a rotated one', async () => {
		const revoked = await lms.createKey('acme', ['read:users'], 'to revoke');
		await lms.revokeKey(revoked.id);
		expect(await test(lms.baseUrl, revoked.key)).toEqual({ status: 'Error', message: await detailFor(revoked.key) });

		const rotated = await lms.createKey('acme', ['read:users'], 'to rotate');
		await lms.rotateKey(rotated.id);
		expect(await test(lms.baseUrl, rotated.key)).toEqual({ status: 'Error', message: await detailFor(rotated.key) });
	});
});

describe('fails with what to do when the Base URL is not an LMS', () => {
	it.each([
		['a web page (200 HTML)', () => `${foreignUrl}/html`],
		['another API (401 JSON without an LMS code)', () => `${foreignUrl}/other-api`],
		['a bare 404', () => `${foreignUrl}/nothing-here`],
	])('%s', async (_what, baseUrl) => {
		const result = await test(baseUrl(), 'lms_someKey000000000000000000000000');
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/Base URL/);
	});

	// A declarative test's request that gets no answer fails with n8n's own wording: the error's code.
	// Issue 29: an LMS answers an unknown path before it looks at the key, so these passed before
	// with any key, even an empty one.
	it.each(['/api', '/api/v2', '/lms'])('the LMS address with %s after it, with a working key, an unknown one and none', async (path) => {
		const { key } = await lms.createKey('acme', ['read:users'], `extra path ${path}`);
		for (const apiKey of [key, 'lms_unknownKeyOfNoOne000000000000000', '']) {
			const result = await test(`${lms.baseUrl}${path}`, apiKey);
			expect(result.status).toBe('Error');
			expect(result.message).toContain('remove a path such as /api');
		}
	});

	it('nothing listens there', async () => {
		const closed = `http://127.0.0.1:${await freePort()}`;
		expect(await test(closed, 'lms_someKey000000000000000000000000')).toEqual({ status: 'Error', message: 'ECONNREFUSED' });
	});

	it('the Base URL has no scheme', async () => {
		const result = await test(lms.baseUrl.replace('http://', ''), 'lms_someKey000000000000000000000000');
		expect(result).toEqual({ status: 'Error', message: 'ERR_INVALID_URL' });
	});
});
