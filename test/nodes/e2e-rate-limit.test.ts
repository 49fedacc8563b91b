/**
 * Return All under the per-IP limit, against the real server: the server's limit is lowered
 * (RATE_LIMIT_PER_MINUTE requests per RATE_LIMIT_WINDOW_MS) so a list needs more pages than one
 * window allows, and the node must finish by waiting out each 429's Retry-After.
 */
import { LmsEnrollments } from '../../nodes/LmsEnrollments/LmsEnrollments.node';
import { LmsUsers } from '../../nodes/LmsUsers/LmsUsers.node';
import { pinTypeVersion, runNode } from '../helpers/n8n';
import { startTestServer, type TestServer } from '../helpers/server';

// Version 1's parameters: these tests go on proving that workflows saved with version 1 run unchanged.
pinTypeVersion(1);

const REQUESTS_PER_WINDOW = 2;
const WINDOW_MS = 2_000;

let server: TestServer;
let apiKey: string;

beforeAll(async () => {
	server = await startTestServer({
		env: { RATE_LIMIT_PER_MINUTE: String(REQUESTS_PER_WINDOW), RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) },
	});
	apiKey = (await server.createKey('acme', ['read:users', 'read:enrollments'], 'rate limit e2e')).key;
}, 120_000);

afterAll(async () => {
	await server?.stop();
});

it('Return All needing more pages than the limit allows completes by waiting on Retry-After', async () => {
	const credentials = { baseUrl: server.baseUrl, apiKey };
	const before = await server.requests({ status: 429 });
	const started = Date.now();

	const { items, error } = await runNode(new LmsEnrollments(), { operation: 'getAll', returnAll: true }, { credentials });

	expect(error).toBeUndefined();
	// At least 200 demo enrollments: three or more pages of 100 against two requests per window.
	expect(items.length).toBeGreaterThanOrEqual(200);
	expect(new Set(items.map((item) => item.json.id)).size).toBe(items.length);
	expect(await server.requests({ status: 429 })).toBeGreaterThan(before);
	expect(Date.now() - started).toBeGreaterThanOrEqual(WINDOW_MS / 2);

	// The count matches what the API reports once the window has passed.
	await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
	const response = await fetch(`${server.baseUrl}/api/v1/enrollments?per_page=1`, {
		headers: { Authorization: `Bearer ${apiKey}` },
	});
	const body = (await response.json()) as { pagination: { total: number } };
	expect(items).toHaveLength(body.pagination.total);
}, 60_000);

it('several input items in a row share the limit and all complete', async () => {
	const credentials = { baseUrl: server.baseUrl, apiKey };
	const { items, error } = await runNode(
		new LmsUsers(),
		{ operation: 'getAll', returnAll: false, limit: 3, filters: { role: '={{ $json.role }}' } },
		{ credentials, items: [{ role: 'student' }, { role: 'instructor' }, { role: 'student' }, { role: 'instructor' }] },
	);
	expect(error).toBeUndefined();
	expect(items).toHaveLength(12);
	expect(items.map((item) => (item.pairedItem as { item: number }).item)).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]);
}, 60_000);
