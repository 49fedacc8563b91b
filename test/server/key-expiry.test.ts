/**
 * API keys with an expiry date (issue 30): chosen at creation (CLI `--expires`, the settings
 * form), shown by `keys list/show` and GET /api/v1/key, refused from that instant with
 * 401 api_key_expired, kept through a rotation, and announced in the audit log once per key
 * ("expires within 7 days", then "expired"), however many sweeps race for it.
 */
import { Op } from 'sequelize';

import { sweepKeyExpiry } from '../../server/src/api-keys/expiry-sweep';
import { ApiKey, AuditEvent } from '../../server/src/api-keys/model';
import { KeyRuleError } from '../../server/src/api-keys/errors';
import { createKey, revokeKey, rotateKey } from '../../server/src/api-keys/lifecycle';
import { findOrganization } from '../../server/src/organizations/service';
import { runCli, type CliResult } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';

const DAY = 86_400_000;
const actor = { kind: 'cli' } as const;

let server: TestServer;
let acmeId: string;
const cli = (...args: string[]) => runCli(args, { env: { DATABASE_URL: server.databaseUrl } });
const json = <T = Record<string, unknown>>(result: CliResult): T => {
	expect(result).toMatchObject({ code: 0, stderr: '' });
	return JSON.parse(result.stdout) as T;
};
const get = async (path: string, key: string) => {
	const res = await fetch(`${server.baseUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } });
	return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
};
/** Time passing for one key: its date moves, nothing else about it changes. */
const moveExpiry = (id: string, at: Date) => ApiKey.update({ expiresAt: at }, { where: { id }, silent: true });
const entries = (apiKeyId: string, action: string) => AuditEvent.count({ where: { apiKeyId, action } });

beforeAll(async () => {
	// A short sweep beat, so the background pass is seen within the test.
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000', OVERDUE_SWEEP_MS: '200' } });
	acmeId = (await findOrganization('acme')).id;
}, 60_000);
afterAll(() => server?.stop());

describe('choosing an expiry at creation', () => {
	test('`keys create --expires 30`: the key works, and list, show and GET /api/v1/key tell its date', async () => {
		const before = Date.now();
		const created = json(await cli('keys', 'create', '--org', 'acme', '--label', 'Contractor', '--scopes', 'read:users', '--expires', '30', '--json'));
		const expiresAt = Date.parse(created.expires_at as string);
		expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * DAY);
		expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * DAY);
		expect(new Date(expiresAt).toISOString()).toBe(created.expires_at);

		expect((await get('/api/v1/users?per_page=1', created.key as string)).status).toBe(200);
		expect((await get('/api/v1/key', created.key as string)).body).toMatchObject({ id: created.id, expires_at: created.expires_at });

		const listed = json<Array<Record<string, unknown>>>(await cli('keys', 'list', '--org', 'acme', '--json'));
		expect(listed.find((k) => k.id === created.id)).toEqual({ ...created, key: undefined });
		const shown = await cli('keys', 'show', created.id as string);
		expect(shown.stdout).toContain(`expires:    ${created.expires_at as string}`);
		const table = await cli('keys', 'list', '--org', 'acme');
		expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+LABEL\s+SCOPES\s+STATUS\s+KEY\s+CREATED\s+LAST USED\s+EXPIRES$/);
		expect(table.stdout).toContain(created.expires_at as string);
	});

	test('a date means midnight UTC at its start; a date-time keeps its instant; no expiry shows none', async () => {
		const year = new Date().getUTCFullYear() + 1;
		const byDate = json(await cli('keys', 'create', '--org', 'acme', '--label', 'By date', '--scopes', 'read:users', '--expires', `${year}-03-01`, '--json'));
		expect(byDate.expires_at).toBe(`${year}-03-01T00:00:00.000Z`);
		const byTime = json(await cli('keys', 'create', '--org', 'acme', '--label', 'By time', '--scopes', 'read:users', '--expires', `${year}-03-01T17:30:00+02:00`, '--json'));
		expect(byTime.expires_at).toBe(`${year}-03-01T15:30:00.000Z`);

		const never = json(await cli('keys', 'create', '--org', 'acme', '--label', 'Never', '--scopes', 'read:users', '--json'));
		expect(never).not.toHaveProperty('expires_at');
		expect((await get('/api/v1/key', never.key as string)).body).not.toHaveProperty('expires_at');
	});

	test.each([
		['2020-01-01', 'The expiry 2020-01-01 is not in the future.'],
		['2030-02-30', '2030-02-30 is not a date that exists.'],
		['next week', 'The expiry "next week" is not a date.'],
		['2030-01-01T00:00:00', 'The expiry "2030-01-01T00:00:00" is not a date.'],
		['0', '0 days is out of range.'],
		['4000', '4000 days is out of range.'],
		['2999-01-01', 'The expiry 2999-01-01 is more than 10 years away.'],
	])('`--expires %s` is refused with a sentence that says what to give, and no key is made', async (value, why) => {
		const before = await ApiKey.count();
		const result = await cli('keys', 'create', '--org', 'acme', '--label', 'Refused', '--scopes', 'read:users', '--expires', value, '--json');
		// A bad option value: a usage error (docs/operating.md, exit statuses).
		expect(result.code).toBe(2);
		expect(result.stdout).toBe('');
		expect(result.stderr).toBe(
			`lms-server: ${why} Give a number of days (1–3650), a date such as 2026-12-31, or a date-time such as 2026-12-31T17:00:00Z; or leave it empty for a key that never expires.\n`,
		);
		expect(await ApiKey.count()).toBe(before);
	});
});

describe('when the date passes', () => {
	test('the key answers 401 api_key_expired with a sentence that says what to do; it cannot be rotated, only revoked', async () => {
		const { apiKey, secret } = await createKey({ organizationId: acmeId, label: 'Short-lived', scopes: ['read:users'], expires: '1', actor });
		expect((await get('/api/v1/users?per_page=1', secret)).status).toBe(200);

		await moveExpiry(apiKey.id, new Date(Date.now() - 1000));
		for (const path of ['/api/v1/users?per_page=1', '/api/v1/key']) {
			const refused = await get(path, secret);
			expect(refused.status).toBe(401);
			expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
			expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="lms", error="invalid_token"');
			expect(refused.body).toMatchObject({
				status: 401,
				code: 'api_key_expired',
				title: 'API key expired',
				detail: 'This API key passed the expiry date set when it was created and no longer works. Ask a Super Admin to create a new key in Settings → API Keys.',
			});
		}

		const rotation = rotateKey({ keyId: apiKey.id, actor });
		await expect(rotation).rejects.toBeInstanceOf(KeyRuleError);
		await expect(rotation).rejects.toMatchObject({ code: 'key_not_active', message: expect.stringMatching(/^The key Short-lived expired on .*: create a new key instead of rotating it\.$/) });
		const show = await cli('keys', 'show', apiKey.id);
		expect(show.stdout).toMatch(/status: {5}expired/);
		await revokeKey({ keyId: apiKey.id, actor });
		expect((await get('/api/v1/key', secret)).body.code).toBe('api_key_revoked');
	});

	test('a rotation keeps the date: the new key expires when the old one would have', async () => {
		const { apiKey } = await createKey({ organizationId: acmeId, label: 'Rotating', scopes: ['read:users'], expires: '20', actor });
		const rotated = await rotateKey({ keyId: apiKey.id, actor });
		expect(rotated.apiKey.expiresAt).toEqual(apiKey.expiresAt);
		expect((await get('/api/v1/key', rotated.secret)).body.expires_at).toBe(apiKey.expiresAt!.toISOString());
	});
});

describe('the audit log', () => {
	test('the server writes "expires within 7 days" once, then "expired" once, as system; a key far from its date gets neither', async () => {
		const soon = await createKey({ organizationId: acmeId, label: 'Expiring soon', scopes: ['read:users'], expires: '3', actor });
		const far = await createKey({ organizationId: acmeId, label: 'Expiring later', scopes: ['read:users'], expires: '30', actor });

		// The background sweep (every 200 ms here) finds it without anyone asking.
		await waitUntil(() => entries(soon.apiKey.id, 'key.expiring'), { what: 'the expiry reminder' });
		const [reminder] = await AuditEvent.findAll({ where: { apiKeyId: soon.apiKey.id, action: 'key.expiring' } });
		expect(reminder).toMatchObject({ actor: 'system', actorName: 'system', organizationId: acmeId, ip: null });

		await moveExpiry(soon.apiKey.id, new Date(Date.now() - 1000));
		await waitUntil(() => entries(soon.apiKey.id, 'key.expired'), { what: 'the expired entry' });
		// Later passes have run (a fresh pass returns, and the far key's window is still closed): nothing more.
		await sweepKeyExpiry();
		expect(await entries(soon.apiKey.id, 'key.expiring')).toBe(1);
		expect(await entries(soon.apiKey.id, 'key.expired')).toBe(1);
		expect(await entries(far.apiKey.id, 'key.expiring')).toBe(0);
	});

	test('a key that expired before any pass saw it gets "expired" only', async () => {
		const { apiKey } = await createKey({ organizationId: acmeId, label: 'Missed', scopes: ['read:users'], expires: '30', actor });
		await moveExpiry(apiKey.id, new Date(Date.now() - DAY));
		await waitUntil(() => entries(apiKey.id, 'key.expired'), { what: 'the expired entry' });
		await sweepKeyExpiry();
		expect(await entries(apiKey.id, 'key.expiring')).toBe(0);
		expect(await entries(apiKey.id, 'key.expired')).toBe(1);
	});

	test('revoked and rotated keys are not announced', async () => {
		const { apiKey } = await createKey({ organizationId: acmeId, label: 'Gone', scopes: ['read:users'], expires: '30', actor });
		await revokeKey({ keyId: apiKey.id, actor });
		await moveExpiry(apiKey.id, new Date(Date.now() + DAY));
		await sweepKeyExpiry();
		expect(await AuditEvent.count({ where: { apiKeyId: apiKey.id, action: { [Op.in]: ['key.expiring', 'key.expired'] } } })).toBe(0);
	});

	test('race: many concurrent sweeps (and the background one) write each entry exactly once per key', async () => {
		const keys = await Promise.all(
			Array.from({ length: 5 }, (_, i) => createKey({ organizationId: acmeId, label: `race expiry ${i}`, scopes: ['read:users'], expires: '30', actor })),
		);
		const ids = keys.map((k) => k.apiKey.id);
		// All five enter the reminder window at once, then all five expire at once.
		await ApiKey.update({ expiresAt: new Date(Date.now() + 2 * DAY) }, { where: { id: ids }, silent: true });
		const reminded = await Promise.all(Array.from({ length: 8 }, () => sweepKeyExpiry()));
		await waitUntil(async () => (await AuditEvent.count({ where: { apiKeyId: ids, action: 'key.expiring' } })) === 5, { what: 'five reminders' });
		expect(reminded.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5);

		await ApiKey.update({ expiresAt: new Date(Date.now() - 1000) }, { where: { id: ids }, silent: true });
		await Promise.all(Array.from({ length: 8 }, () => sweepKeyExpiry()));
		await waitUntil(async () => (await AuditEvent.count({ where: { apiKeyId: ids, action: 'key.expired' } })) === 5, { what: 'five expired entries' });
		await sweepKeyExpiry();
		for (const id of ids) {
			expect(await entries(id, 'key.expiring')).toBe(1);
			expect(await entries(id, 'key.expired')).toBe(1);
		}
	});
});
