/**
 * SPEC §22: rotating an API key may keep the old key working for a chosen time
 * (`expire_old_after`, 0–168 whole hours, default 0). Through the key service, the settings form,
 * the CLI and GET /api/v1/key; a grace ends when `grace_until` passes (set in the past here
 * rather than waited for) or when the old key is revoked.
 */
import { KeyRuleError } from '../../server/src/api-keys/errors';
import { revokeKey, rotateKey } from '../../server/src/api-keys/lifecycle';
import { ApiKey } from '../../server/src/api-keys/model';
import { runCli } from '../helpers/cli';
import { PageClient } from '../helpers/page-client';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';

let server: TestServer;
const actor = { kind: 'cli' } as const;

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
}, 60_000);
afterAll(() => server?.stop());

async function getKey(key: string): Promise<{ status: number; body: Record<string, unknown> }> {
	const res = await fetch(`${server.baseUrl}/api/v1/key`, { headers: { Authorization: `Bearer ${key}` } });
	return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const HOUR = 3_600_000;

test('with a grace the old key works until grace_until, shows it on GET /key, is logged as old, then answers api_key_rotated', async () => {
	const old = await server.createKey('acme', ['read:users'], 'grace 24');
	const before = Date.now();
	const issued = await rotateKey({ keyId: old.id, actor, expireOldAfter: '24h' });

	const stored = await ApiKey.findByPk(old.id);
	expect(stored!.status).toBe('rotated');
	const until = stored!.graceUntil!.getTime();
	expect(until).toBeGreaterThanOrEqual(before + 24 * HOUR);
	expect(until).toBeLessThanOrEqual(Date.now() + 24 * HOUR);

	const during = await getKey(old.key);
	expect(during.status).toBe(200);
	expect(during.body.grace_until).toBe(stored!.graceUntil!.toISOString());
	const fresh = await getKey(issued.secret);
	expect(fresh.status).toBe(200);
	expect(fresh.body.grace_until).toBeNull();

	// The old key's request is logged as such; the new key's is not.
	await waitUntil(() => server.logs().includes(`"api_key_id":"${old.id}","old_key":true`));
	expect(server.logs()).not.toContain(`"api_key_id":"${issued.apiKey.id}"`);

	await ApiKey.update({ graceUntil: new Date(Date.now() - 1000) }, { where: { id: old.id } });
	const after = await getKey(old.key);
	expect(after.status).toBe(401);
	expect(after.body.code).toBe('api_key_rotated');
});

test('0 (the default) keeps today\'s behaviour: the old key stops at once', async () => {
	for (const expireOldAfter of [undefined, 0, '0h']) {
		const old = await server.createKey('acme', ['read:users'], 'grace 0');
		await rotateKey({ keyId: old.id, actor, expireOldAfter });
		expect((await ApiKey.findByPk(old.id))!.graceUntil).toBeNull();
		const refused = await getKey(old.key);
		expect(refused.status).toBe(401);
		expect(refused.body.code).toBe('api_key_rotated');
	}
});

test('revoking the old key cuts its grace at once; it cannot be rotated again', async () => {
	const old = await server.createKey('acme', ['read:users'], 'grace cut');
	await rotateKey({ keyId: old.id, actor, expireOldAfter: 72 });
	expect((await getKey(old.key)).status).toBe(200);
	await expect(rotateKey({ keyId: old.id, actor })).rejects.toMatchObject({ code: 'key_not_active' });
	await revokeKey({ keyId: old.id, actor });
	const refused = await getKey(old.key);
	expect(refused.status).toBe(401);
	expect(refused.body.code).toBe('api_key_revoked');
});

test('bad values are refused and change nothing', async () => {
	const old = await server.createKey('acme', ['read:users'], 'grace bad');
	for (const expireOldAfter of [169, '-1', '1.5', '2d', 'soon', {}]) {
		await expect(rotateKey({ keyId: old.id, actor, expireOldAfter })).rejects.toMatchObject({ code: 'invalid_expire_old_after' });
	}
	expect((await ApiKey.findByPk(old.id))!.status).toBe('active');

	const cli = (...args: string[]) => runCli(['keys', 'rotate', old.id, ...args], { env: { DATABASE_URL: server.databaseUrl } });
	const bad = await cli('--expire-old-after', '200h');
	expect(bad.code).toBe(2);
	expect(bad.stderr).toMatch(/whole number of hours from 0 to 168/);
	expect((await ApiKey.findByPk(old.id))!.status).toBe('active');

	const good = await cli('--expire-old-after', '24h');
	expect(good.code).toBe(0);
	expect(good.stdout).toMatch(/keeps working until \d{4}-/);
	expect((await getKey(old.key)).status).toBe(200);
});

test('the settings form: a bad choice is an error on the page, a good one shows "works until"', async () => {
	const { email, password } = server.demo!.accounts.find((a) => a.organization === 'acme' && a.role === 'super_admin')!;
	const client = new PageClient(server.baseUrl);
	expect(PageClient.signInOutcome(await client.signIn(email, password))).toBe('signed-in');
	const old = await server.createKey('acme', ['read:users'], 'grace form');

	const confirm = await client.get(`/settings/api-keys/${old.id}/rotate`);
	expect(confirm.body).toContain('Keep the old key working for');
	// Refused by post/redirect/get: back to the form, which says why once.
	const refused = await client.post(`/settings/api-keys/${old.id}/rotate`, { _csrf: PageClient.csrfToken(confirm), expire_old_after: '500' });
	expect(refused.status).toBe(303);
	const shown = await client.get(String(refused.headers.location));
	expect(shown.body).toContain('whole number of hours from 0 to 168');
	expect((await ApiKey.findByPk(old.id))!.status).toBe('active');

	const again = await client.get(`/settings/api-keys/${old.id}/rotate`);
	// A number field: any whole hour of the rule's range, not only a few choices.
	expect(again.body).toMatch(/<input id="expire_old_after" name="expire_old_after" type="number" min="0" max="168" step="1"/);
	const rotated = await client.post(`/settings/api-keys/${old.id}/rotate`, { _csrf: PageClient.csrfToken(again), expire_old_after: '37' });
	expect(rotated.status).toBe(303);
	const graceMs = (await ApiKey.findByPk(old.id))!.graceUntil!.getTime() - Date.now();
	expect(graceMs > 36 * 3_600_000 && graceMs <= 37 * 3_600_000).toBe(true);
	expect((await getKey(old.key)).status).toBe(200);
	const list = await client.get('/settings/api-keys');
	const row = list.body.slice(list.body.indexOf(`data-key-id="${old.id}"`));
	expect(row.slice(0, row.indexOf('</tr>'))).toContain('works until');
});

test('two concurrent rotations with a grace: one wins, the other answers not active', async () => {
	const old = await server.createKey('acme', ['read:users'], 'grace race');
	const results = await Promise.allSettled([
		rotateKey({ keyId: old.id, actor, expireOldAfter: 24 }),
		rotateKey({ keyId: old.id, actor, expireOldAfter: 1 }),
	]);
	const won = results.filter((r) => r.status === 'fulfilled');
	const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
	expect(won).toHaveLength(1);
	expect(lost).toHaveLength(1);
	expect(lost[0].reason).toBeInstanceOf(KeyRuleError);
	expect((lost[0].reason as KeyRuleError).code).toBe('key_not_active');
	expect(await ApiKey.count({ where: { label: 'grace race', status: 'active' } })).toBe(1);
	expect((await getKey(old.key)).status).toBe(200);
});
