import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { testCredential } from '../helpers/n8n';
import { freePort } from '../helpers/ports';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * SPEC §15: the credential test passes only when an LMS answers, and fails for anything else.
 * The declarative test runs as n8n runs it (n8n-core's engine, real HTTP, then the rules) against
 * real servers on loopback: the LMS itself, a web server, another JSON API, a closed port, and
 * addresses without a scheme. What a failure says for a request that got no answer at all is
 * n8n's own wording (see docs/credentials.md).
 */

let lms: TestServer;
const others: Server[] = [];

/** A server on loopback that answers every request with `handler`. */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
	const server = createServer(handler);
	others.push(server);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const send = (status: number, type: string, body: string) => (_req: IncomingMessage, res: ServerResponse) => {
	res.writeHead(status, { 'Content-Type': type });
	res.end(body);
};

beforeAll(async () => {
	lms = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
}, 60_000);

afterAll(async () => {
	await Promise.all(others.map((s) => new Promise((resolve) => s.close(resolve))));
	await lms?.stop();
});

const NOT_AN_LMS = /Something other than the LMS API answers there\. Check the credential's Base URL/;

describe('against the real LMS', () => {
	test('passes for an active key, whatever its scopes and however the Base URL is pasted', async () => {
		for (const [scopes, baseUrl] of [
			[['read:users'], lms.baseUrl],
			[['write:enrollments'], `${lms.baseUrl}/`],
			[['read:courses', 'read:enrollments'], `  ${lms.baseUrl}/api/v1/  `],
			[['manage:webhooks'], `${lms.baseUrl}/api/v1`],
		] as const) {
			const { key } = await lms.createKey('acme', [...scopes], `cred ${scopes.join(' ')}`);
			await expect(testCredential({ baseUrl, apiKey: key })).resolves.toEqual({ status: 'OK', message: 'Connection successful!' });
		}
	});

	test("fails for an unknown, a revoked and a rotated key with the server's own sentence", async () => {
		const revoked = await lms.createKey('acme', ['read:users'], 'cred revoked');
		await lms.revokeKey(revoked.id);
		const rotated = await lms.createKey('acme', ['read:users'], 'cred rotated');
		await lms.rotateKey(rotated.id);
		for (const key of ['lms_notarealkeynotarealkeynotareal000000', revoked.key, rotated.key]) {
			const result = await testCredential({ baseUrl: lms.baseUrl, apiKey: key });
			const res = await fetch(`${lms.baseUrl}/api/v1/users`, { headers: { Authorization: `Bearer ${key}` } });
			expect(result).toEqual({ status: 'Error', message: ((await res.json()) as { detail: string }).detail });
		}
	});

	test('fails for an empty API Key field, saying to paste the key', async () => {
		expect(await testCredential({ baseUrl: lms.baseUrl, apiKey: '  ' })).toEqual({
			status: 'Error',
			message: 'The LMS received no API key: paste the key into the API Key field.',
		});
	});
});

describe('where no LMS answers', () => {
	const key = 'lms_notarealkeynotarealkeynotareal000000';
	const notAnLms = async (baseUrl: string) => {
		const result = await testCredential({ baseUrl, apiKey: key });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(NOT_AN_LMS);
	};

	test('a web page answering 200 (a website, the LMS front end)', async () => {
		await notAnLms(await serve(send(200, 'text/html; charset=utf-8', '<!doctype html><html><body>Welcome</body></html>')));
	});

	test("a static web server's HTML 404 page", async () => {
		await notAnLms(await serve(send(404, 'text/html', '<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>')));
	});

	test("another JSON API: n8n's own /api/v1 answering 401 without a code", async () => {
		await notAnLms(
			await serve((req, res) => {
				res.writeHead(req.url?.startsWith('/api/v1/') ? 401 : 404, { 'Content-Type': 'application/json; charset=utf-8' });
				res.end(JSON.stringify({ message: "'X-N8N-API-KEY' header required" }));
			}),
		);
	});

	test('another JSON API answering 200 with a list', async () => {
		await notAnLms(await serve(send(200, 'application/json', JSON.stringify({ data: [{ id: 1 }], meta: { total: 1 } }))));
	});

	test('another API whose errors carry a request id but no LMS code', async () => {
		await notAnLms(await serve(send(404, 'application/json', JSON.stringify({ error: 'not found', request_id: 'abc' }))));
	});

	test('a bare 404', async () => {
		await notAnLms(await serve(send(404, 'text/plain', 'Not Found')));
	});

	test('a closed port, and a host name that does not resolve: n8n says the connection failed', async () => {
		const port = await freePort();
		expect(await testCredential({ baseUrl: `http://127.0.0.1:${port}`, apiKey: key })).toMatchObject({
			status: 'Error',
			message: expect.stringMatching(/refused the connection|ECONNREFUSED/),
		});
		expect(await testCredential({ baseUrl: 'http://lms.invalid', apiKey: key })).toMatchObject({
			status: 'Error',
			message: expect.stringMatching(/incorrect host|ENOTFOUND|EAI_AGAIN/),
		});
	});

	test.each(['lms.example.com', '127.0.0.1:3000', 'ftp://lms.example.com', ''])('a Base URL without an http(s) scheme fails: %j', async (baseUrl) => {
		const result = await testCredential({ baseUrl, apiKey: key });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/Invalid URL|Unsupported protocol/);
	});
});
