import { runCli } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * A key secret is shown once to the person who created it and then exists nowhere on the
 * server: not in the database file, not in its write-ahead log, not in a log line, not in a
 * listing. Each check looks for the whole key and for its random body alone.
 */
describe('key secrets', () => {
	let server: TestServer;
	const secrets: string[] = [];
	const cli = (...args: string[]) => runCli(args, { env: { DATABASE_URL: server.databaseUrl } });
	const needles = () => secrets.flatMap((key) => [key, key.slice(4, 36)]);

	beforeAll(async () => {
		server = await startTestServer();
		const created = await cli('keys', 'create', '--org', 'acme', '--label', 'Secret test', '--scopes', 'read:users,write:enrollments', '--json');
		expect(created.code).toBe(0);
		const fromCli = JSON.parse(created.stdout) as { id: string; key: string };
		const rotated = await cli('keys', 'rotate', fromCli.id, '--json');
		const fromService = await server.createKey('acme', ['read:courses'], 'Service key');
		secrets.push(fromCli.key, (JSON.parse(rotated.stdout) as { key: string }).key, fromService.key);

		// Use every key the ways a careless client might: properly, in the query string, in a bad body.
		for (const key of secrets) {
			await fetch(`${server.baseUrl}/api/v1/users`, { headers: { Authorization: `Bearer ${key}` } });
			await fetch(`${server.baseUrl}/api/v1/users?api_key=${key}`, { headers: { Authorization: `Bearer ${key}` } });
			await fetch(`${server.baseUrl}/api/v1/courses/${key}`, { headers: { Authorization: `Bearer ${key}` } });
			await fetch(`${server.baseUrl}/api/v1/enrollments`, {
				method: 'POST',
				headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
				body: `${key} is not JSON`,
			});
			await fetch(`${server.baseUrl}/api/v1/users`, { headers: { Authorization: key } });
		}
	});
	afterAll(() => server.stop());

	it('never reach the server logs', () => {
		const logs = server.logs();
		expect(logs.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(15);
		for (const needle of needles()) expect(logs).not.toContain(needle);
	});

	it('never reach the database (the SQLite file and its write-ahead log, or the PostgreSQL rows)', async () => {
		const bytes = await server.storedBytes();
		expect(bytes.length).toBeGreaterThan(0);
		for (const needle of needles()) expect(bytes.includes(needle)).toBe(false);
	});

	it('never appear in keys list, human or JSON', async () => {
		const human = await cli('keys', 'list', '--org', 'acme');
		const json = await cli('keys', 'list', '--org', 'acme', '--json');
		// The CLI key, its replacement after rotation, and the service key.
		expect(JSON.parse(json.stdout)).toHaveLength(3);
		for (const needle of needles()) {
			expect(human.stdout).not.toContain(needle);
			expect(json.stdout).not.toContain(needle);
		}
	});
});
