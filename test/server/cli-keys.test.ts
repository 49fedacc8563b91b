import { AuditEvent } from '../../server/src/api-keys/model';
import { runCli, type CliResult } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';

/** The whole key lifecycle as an operator drives it from the server host, checked over HTTP. */
describe('lms-server keys', () => {
	let server: TestServer;
	const cli = (...args: string[]) => runCli(args, { env: { DATABASE_URL: server.databaseUrl } });
	const json = <T = Record<string, unknown>>(result: CliResult): T => {
		expect(result).toMatchObject({ code: 0, stderr: '' });
		return JSON.parse(result.stdout) as T;
	};
	const getUsers = (key: string) =>
		fetch(`${server.baseUrl}/api/v1/users`, { headers: { Authorization: `Bearer ${key}` } });

	beforeAll(async () => {
		server = await startTestServer();
	});
	afterAll(() => server.stop());

	it('creates a key that works at once, shows it once, and lists it masked', async () => {
		const created = json(await cli('keys', 'create', '--org', 'acme', '--label', 'HR sync', '--scopes', 'read:users,read:courses', '--json'));
		expect(Object.keys(created).sort()).toEqual(['created_at', 'id', 'key', 'label', 'masked', 'scopes', 'status']);
		expect(created).toMatchObject({ label: 'HR sync', scopes: ['read:users', 'read:courses'], status: 'active' });
		const key = created.key as string;
		expect(key).toMatch(/^lms_[0-9A-Za-z]{38}$/);
		expect(created.masked).toBe(`${key.slice(0, 8)}…${key.slice(-4)}`);
		expect(new Date(created.created_at as string).toISOString()).toBe(created.created_at);

		expect((await getUsers(key)).status).toBe(200);

		const listed = json<Array<Record<string, unknown>>>(await cli('keys', 'list', '--org', 'acme', '--json'));
		const entry = listed.find((k) => k.id === created.id)!;
		expect(entry).toEqual({ ...created, key: undefined });
		expect(Object.keys(entry)).not.toContain('key');

		const human = await cli('keys', 'list', '--org', 'acme');
		expect(human.code).toBe(0);
		expect(human.stdout).toContain(created.masked);
		expect(human.stdout).toContain('HR sync');
		expect(human.stdout).not.toContain(key);
	});

	it('prints the new key once in human form, with a warning', async () => {
		const result = await cli('keys', 'create', '--org', 'acme', '--label', 'Dashboard', '--scopes', 'read:courses');
		expect(result.code).toBe(0);
		expect(result.stdout).toMatch(/lms_[0-9A-Za-z]{38}/);
		expect(result.stdout).toMatch(/only time the full key is shown/);
	});

	it('rotates: the old key answers api_key_rotated, the new one works with the same label and scopes', async () => {
		const old = json(await cli('keys', 'create', '--org', 'acme', '--label', 'Zapier', '--scopes', 'read:users', '--json'));
		const rotated = json(await cli('keys', 'rotate', old.id as string, '--json'));
		expect(rotated).toMatchObject({ label: 'Zapier', scopes: ['read:users'], status: 'active' });
		expect(rotated.id).not.toBe(old.id);
		expect(rotated.key).not.toBe(old.key);

		const refused = await getUsers(old.key as string);
		expect(refused.status).toBe(401);
		expect(await refused.json()).toMatchObject({ code: 'api_key_rotated' });
		expect((await getUsers(rotated.key as string)).status).toBe(200);

		const listed = json<Array<Record<string, unknown>>>(await cli('keys', 'list', '--org', 'acme', '--json'));
		expect(listed.find((k) => k.id === old.id)).toMatchObject({ status: 'rotated' });

		const again = await cli('keys', 'rotate', old.id as string);
		expect(again.code).not.toBe(0);
		expect(again.stderr).toMatch(/already rotated/);
	});

	it('revokes: the key answers api_key_revoked from the next request on', async () => {
		const created = json(await cli('keys', 'create', '--org', 'acme', '--label', 'Old export', '--scopes', 'read:users', '--json'));
		expect((await getUsers(created.key as string)).status).toBe(200);

		const revoked = json(await cli('keys', 'revoke', created.id as string, '--json'));
		expect(revoked).toMatchObject({ id: created.id, status: 'revoked' });
		expect(revoked).not.toHaveProperty('key');

		const refused = await getUsers(created.key as string);
		expect(refused.status).toBe(401);
		expect(await refused.json()).toMatchObject({ code: 'api_key_revoked' });

		const human = await cli('keys', 'revoke', created.id as string);
		expect(human.code).not.toBe(0);
		expect(human.stderr).toMatch(/already revoked/);
	});

	it('records every lifecycle event in the audit log with the actor cli', async () => {
		const created = json(await cli('keys', 'create', '--org', 'globex', '--label', 'Audit me', '--scopes', 'read:users', '--json'));
		const rotated = json(await cli('keys', 'rotate', created.id as string, '--json'));
		await cli('keys', 'revoke', rotated.id as string);

		const events = await AuditEvent.findAll({ where: { apiKeyId: [created.id as string, rotated.id as string] }, order: [['createdAt', 'ASC']] });
		expect(events.map((e) => [e.action, e.apiKeyId, e.actor])).toEqual([
			['key.created', created.id, 'cli'],
			['key.rotated', created.id, 'cli'],
			['key.revoked', rotated.id, 'cli'],
		]);
	});

	it('prints a plain table with a header row', async () => {
		const result = await cli('keys', 'list', '--org', 'globex');
		expect(result.code).toBe(0);
		expect(result.stdout.split('\n')[0]).toMatch(/^ID\s+LABEL\s+SCOPES\s+STATUS\s+KEY\s+CREATED\s+LAST USED$/);
	});

	it('says so when an organization has no keys', async () => {
		const result = await cli('keys', 'list', '--org', 'initech');
		expect(result).toMatchObject({ code: 0, stdout: 'initech has no API keys.\n' });
		expect(json(await cli('keys', 'list', '--org', 'initech', '--json'))).toEqual([]);
	});
});
