/**
 * SPEC §22, issue 39: a rotated key kept working for a while (expire_old_after) is one the
 * operator wants switched off, so its use is visible: each request counted in
 * `lms_api_old_key_requests_total` (/metrics), logged with `api_key_id` and `old_key: true`, and
 * its last use shown in the key list (`keys list`, Settings → API Keys) beside the new key's.
 */
import { rotateKey } from '../../server/src/api-keys/lifecycle';
import { ApiKey } from '../../server/src/api-keys/model';
import { runCli } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';

const TOKEN = 'grace-usage-metrics-token';
let server: TestServer;

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000', METRICS_TOKEN: TOKEN } });
}, 60_000);
afterAll(() => server?.stop());

const users = (key: string) => fetch(`${server.baseUrl}/api/v1/users?per_page=1`, { headers: { Authorization: `Bearer ${key}` } }).then((r) => r.status);

async function oldKeyRequests(): Promise<number> {
	const text = await (await fetch(`${server.baseUrl}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).text();
	const line = text.split('\n').find((l) => l.startsWith('lms_api_old_key_requests_total '));
	expect(line).toBeDefined();
	return Number(line!.split(' ')[1]);
}

test('the old key\'s requests in its grace are counted, logged and shown as its last use; the new key\'s are not counted', async () => {
	const old = await server.createKey('acme', ['read:users'], 'grace usage');
	const rotatedAt = Date.now();
	const issued = await rotateKey({ keyId: old.id, actor: { kind: 'cli' }, expireOldAfter: '24h' });
	expect((await ApiKey.findByPk(old.id))!.lastUsedAt).toBeNull();

	const start = await oldKeyRequests();
	for (let i = 0; i < 2; i++) expect(await users(issued.secret)).toBe(200);
	expect(await oldKeyRequests()).toBe(start);
	for (let i = 0; i < 3; i++) expect(await users(old.key)).toBe(200);
	await waitUntil(async () => (await oldKeyRequests()) === start + 3);
	await waitUntil(() => server.logs().includes(`"api_key_id":"${old.id}","old_key":true`));

	await waitUntil(async () => (await ApiKey.findByPk(old.id))!.lastUsedAt !== null);
	const lastUsed = (await ApiKey.findByPk(old.id))!.lastUsedAt!;
	expect(lastUsed.getTime()).toBeGreaterThanOrEqual(rotatedAt - 1000);
	const list = await runCli(['keys', 'list', '--org', 'acme'], { env: { DATABASE_URL: server.databaseUrl } });
	expect(list.code).toBe(0);
	const row = list.stdout.split('\n').find((line) => line.startsWith(old.id));
	expect(row).toBeDefined();
	expect(row).toContain('rotated');
	expect(row).toContain(lastUsed.toISOString());
});
