/**
 * The LMS API credential's test as a person meets it in n8n's editor ("Save" / "Retry" call
 * POST /rest/credentials/test): it passes for any working key of an LMS, and for anything else
 * it fails with what to do (SPEC §9, §15).
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
		const { key } = await lms.createKey('acme', ['read:courses'], 'courses only');
		expect(await test(lms.baseUrl, key)).toMatchObject({ status: 'OK' });
		expect(await test(`${lms.baseUrl}/api/v1/`, key)).toMatchObject({ status: 'OK' });
	});
});

describe('fails with the LMS’s own words for a key that cannot work', () => {
	it('an unknown key', async () => {
		const result = await test(lms.baseUrl, 'lms_unknownKeyOfNoOne000000000000000');
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/key/i);
	});

	it('a revoked key, and a rotated one', async () => {
		const revoked = await lms.createKey('acme', ['read:users'], 'to revoke');
		await lms.revokeKey(revoked.id);
		const revokedResult = await test(lms.baseUrl, revoked.key);
		expect(revokedResult).toMatchObject({ status: 'Error' });
		expect(revokedResult.message).toMatch(/revoked/i);

		const rotated = await lms.createKey('acme', ['read:users'], 'to rotate');
		await lms.rotateKey(rotated.id);
		const rotatedResult = await test(lms.baseUrl, rotated.key);
		expect(rotatedResult).toMatchObject({ status: 'Error' });
		expect(rotatedResult.message).toMatch(/rotated/i);
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

	it('nothing listens there', async () => {
		const closed = `http://127.0.0.1:${await freePort()}`;
		const result = await test(closed, 'lms_someKey000000000000000000000000');
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/Base URL|reach|connect/i);
	});

	it('the Base URL has no scheme', async () => {
		const result = await test(lms.baseUrl.replace('http://', ''), 'lms_someKey000000000000000000000000');
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/https?:\/\//);
	});
});
