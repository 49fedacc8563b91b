/**
 * Return All across the per-IP limit, inside a real n8n: the server allows 2 requests every 3
 * seconds, the users and enrollments take several pages each, and the nodes wait out each 429's
 * Retry-After instead of failing.
 */
import type { TestServer } from '../helpers/server';
import { lmsWithN8n, type LmsWithN8n } from './lms-with-n8n';
import { workflowFrom, type N8nHome } from './n8n';

const CREDENTIAL = 'lmsRealCred00001';

let fixture: LmsWithN8n;
let server: TestServer;
let key: string;
let home: N8nHome;

async function count(path: string): Promise<number> {
	const response = await fetch(`${server.baseUrl}/api/v1${path}?per_page=1`, { headers: { Authorization: `Bearer ${key}` } });
	return ((await response.json()) as { pagination: { total: number } }).pagination.total;
}

beforeAll(async () => {
	fixture = await lmsWithN8n({
		scopes: ['read:users', 'read:enrollments'],
		credentialId: CREDENTIAL,
		label: 'real n8n, tight limit',
		env: { RATE_LIMIT_PER_MINUTE: '2', RATE_LIMIT_WINDOW_MS: '3000' },
	});
	({ server, key, home } = fixture);
}, 600_000);

afterAll(async () => {
	await fixture?.close();
});

it('returns every user and every enrollment, each once, although the server answered 429s', async () => {
	const workflow = workflowFrom('return-all', { CREDENTIAL_ID: CREDENTIAL });
	await home.importWorkflow(workflow);

	const run = await home.execute(String(workflow.id));

	expect(run.error).toBeUndefined();
	await new Promise((resolve) => setTimeout(resolve, 3000)); // a fresh window for the counts
	const users = run.nodes['All users'].items.map((item) => item.id);
	const enrollments = run.nodes['All enrollments'].items.map((item) => item.id);
	expect(users).toHaveLength(await count('/users'));
	await new Promise((resolve) => setTimeout(resolve, 3000));
	expect(enrollments).toHaveLength(await count('/enrollments'));
	expect(new Set(users).size).toBe(users.length);
	expect(new Set(enrollments).size).toBe(enrollments.length);
	expect(await server.requests({ status: 429 })).toBeGreaterThan(0);
});
