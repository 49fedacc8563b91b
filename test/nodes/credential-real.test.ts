import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { testCredential } from '../helpers/n8n';
import { freePort } from '../helpers/ports';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * SPEC §15: the credential test passes only when an LMS answers, and fails with what to do for
 * anything else. The test function runs as n8n runs it (n8n-core's loader and
 * CredentialTestContext, real HTTP) against real servers on loopback: the LMS itself, a web
 * server, another JSON API, a closed port, and addresses without a scheme.
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

/** A failure that names what to do about it: the Base URL, the key, or waiting. */
function expectActionable(result: { status: string; message: string }, said: RegExp): void {
	expect(result.status).toBe('Error');
	expect(result.message).toMatch(said);
	expect(result.message).toMatch(/Check|check|start it with|paste|Ask|ask|Use the new key|wait/);
	expect(result.message).not.toMatch(/^(ECONNREFUSED|ERR_INVALID_URL|ENOTFOUND)$/);
}

describe('against the real LMS', () => {
	test('passes for an active key, whatever its scopes and however the Base URL is pasted', async () => {
		for (const [scopes, baseUrl] of [
			[['read:users'], lms.baseUrl],
			[['write:enrollments'], `${lms.baseUrl}/`],
			[['read:courses', 'read:enrollments'], `  ${lms.baseUrl}/api/v1/  `],
		] as const) {
			const { key } = await lms.createKey('acme', [...scopes], `cred ${scopes.join(' ')}`);
			await expect(testCredential({ baseUrl, apiKey: key })).resolves.toEqual({ status: 'OK', message: 'Connection successful!' });
		}
	});

	test("fails for a revoked key with the server's own sentence", async () => {
		const { id, key } = await lms.createKey('acme', ['read:users'], 'cred revoked');
		await lms.revokeKey(id);
		const result = await testCredential({ baseUrl: lms.baseUrl, apiKey: key });
		const res = await fetch(`${lms.baseUrl}/api/v1/users`, { headers: { Authorization: `Bearer ${key}` } });
		expectActionable(result, /api_key_revoked/);
		expect(result.message).toContain(((await res.json()) as { detail: string }).detail);
	});

	test('fails for an empty API Key field, before any request', async () => {
		expectActionable(await testCredential({ baseUrl: lms.baseUrl, apiKey: '  ' }), /API Key field is empty/);
	});
});

describe('where no LMS answers', () => {
	const key = 'lms_notarealkeynotarealkeynotareal000000';

	test('a web page answering 200 (a website, the LMS front end)', async () => {
		const url = await serve(send(200, 'text/html; charset=utf-8', '<!doctype html><html><body>Welcome</body></html>'));
		expectActionable(await testCredential({ baseUrl: url, apiKey: key }), /A web page answers at .*\/api\/v1\/users \(HTTP 200\), not the LMS API\. Check the credential's Base URL/);
	});

	test("a static web server's HTML 404 page", async () => {
		const url = await serve(send(404, 'text/html', '<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>'));
		expectActionable(await testCredential({ baseUrl: url, apiKey: key }), /A web page answers .*\(HTTP 404\).*Check the credential's Base URL/);
	});

	test("another JSON API: n8n's own /api/v1 answering 401 without a code", async () => {
		const url = await serve((req, res) => {
			res.writeHead(req.url?.startsWith('/api/v1/') ? 401 : 404, { 'Content-Type': 'application/json; charset=utf-8' });
			res.end(JSON.stringify({ message: "'X-N8N-API-KEY' header required" }));
		});
		expectActionable(await testCredential({ baseUrl: url, apiKey: key }), /Another API answers at .* \(HTTP 401\), not the LMS/);
	});

	test('another JSON API answering 200 with a list that is not the LMS envelope', async () => {
		const url = await serve(send(200, 'application/json', JSON.stringify({ data: [{ id: 1 }], meta: { total: 1 } })));
		expectActionable(await testCredential({ baseUrl: url, apiKey: key }), /Another API answers .*\(HTTP 200\)/);
	});

	test('a problem+json whose code is not one of the LMS codes', async () => {
		const url = await serve(send(403, 'application/problem+json', JSON.stringify({ title: 'Forbidden', code: 'forbidden', detail: 'No.' })));
		expectActionable(await testCredential({ baseUrl: url, apiKey: key }), /Another API answers .*\(HTTP 403\)/);
	});

	test('a bare 404', async () => {
		const url = await serve(send(404, 'text/plain', 'Not Found'));
		expectActionable(await testCredential({ baseUrl: url, apiKey: key }), /Nothing answers at .*\/api\/v1\/users \(HTTP 404\)/);
	});

	test('a closed port', async () => {
		const port = await freePort();
		expectActionable(
			await testCredential({ baseUrl: `http://127.0.0.1:${port}`, apiKey: key }),
			new RegExp(`Nothing accepts connections at 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)\\. Check the Base URL's host and port`),
		);
	});

	test('a host name that does not resolve', async () => {
		expectActionable(await testCredential({ baseUrl: 'http://lms.invalid', apiKey: key }), /cannot be found \((ENOTFOUND|EAI_AGAIN): lms\.invalid\)\. Check its spelling/);
	});

	test.each(['lms.example.com', '127.0.0.1:3000', 'ftp://lms.example.com', ''])('a Base URL without an http(s) scheme: %j', async (baseUrl) => {
		expectActionable(
			await testCredential({ baseUrl, apiKey: key }),
			/is not a web address: start it with https:\/\/ \(or http:\/\/\), e\.g\. https:\/\/lms\.example\.com/,
		);
	});
});
