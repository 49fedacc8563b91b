import { runCli } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';

describe('lms-server orgs', () => {
	let server: TestServer;
	const cli = (...args: string[]) => runCli(args, { env: { DATABASE_URL: server.databaseUrl } });
	const getCourses = (key: string) =>
		fetch(`${server.baseUrl}/api/v1/courses`, { headers: { Authorization: `Bearer ${key}` } });

	beforeAll(async () => {
		server = await startTestServer();
	});
	afterAll(() => server.stop());

	it('creates an organization that can hold keys on the enterprise plan', async () => {
		const created = await cli('orgs', 'create', '--name', 'Umbrella Corp', '--slug', 'umbrella', '--plan', 'enterprise', '--json');
		expect(created).toMatchObject({ code: 0, stderr: '' });
		expect(JSON.parse(created.stdout)).toMatchObject({ name: 'Umbrella Corp', slug: 'umbrella', plan: 'enterprise', id: expect.stringMatching(/^org_/) });

		const key = await server.createKey('umbrella', ['read:courses']);
		const response = await getCourses(key.key);
		expect(response.status).toBe(200);
		expect(await response.json()).toMatchObject({ data: [], pagination: { total: 0 } });
	});

	it('prints a sentence without --json', async () => {
		const result = await cli('orgs', 'create', '--name', 'Hooli', '--slug', 'hooli', '--plan', 'starter');
		expect(result.code).toBe(0);
		expect(result.stdout).toMatch(/^Created organization hooli \(org_\w+\) on the starter plan\.\n$/);
	});

	it('refuses a taken slug, a malformed slug and an unknown plan', async () => {
		for (const [args, message] of [
			[['--name', 'Acme again', '--slug', 'acme', '--plan', 'enterprise'], /already exists/],
			[['--name', 'Bad', '--slug', 'Not_A_Slug', '--plan', 'enterprise'], /slug "Not_A_Slug" is not valid/],
			[['--name', 'Bad', '--slug', 'bad', '--plan', 'platinum'], /Unknown plan "platinum"/],
			[['--name', '  ', '--slug', 'blank', '--plan', 'starter'], /name of 1 to 200 characters/],
		] as const) {
			const result = await cli('orgs', 'create', ...args);
			expect(result.code).not.toBe(0);
			expect(result.stdout).toBe('');
			expect(result.stderr.trim().split('\n')).toHaveLength(1);
			expect(result.stderr).toMatch(message);
		}
	});

	it('downgrading from enterprise makes its keys answer 403 plan_required on the next request; upgrading restores them', async () => {
		const key = await server.createKey('globex', ['read:courses']);
		expect((await getCourses(key.key)).status).toBe(200);

		const down = await cli('orgs', 'update', 'globex', '--plan', 'business');
		expect(down.code).toBe(0);
		expect(down.stdout).toMatch(/globex is now on the business plan/);
		const refused = await getCourses(key.key);
		expect(refused.status).toBe(403);
		expect(await refused.json()).toMatchObject({ code: 'plan_required' });

		// And no new key while on business.
		const create = await cli('keys', 'create', '--org', 'globex', '--label', 'x', '--scopes', 'read:courses');
		expect(create.code).not.toBe(0);
		expect(create.stderr).toMatch(/Enterprise plan only/);

		const up = await cli('orgs', 'update', 'globex', '--plan', 'enterprise', '--json');
		expect(up.code).toBe(0);
		expect(JSON.parse(up.stdout)).toMatchObject({ slug: 'globex', plan: 'enterprise' });
		expect((await getCourses(key.key)).status).toBe(200);
	});

	it('refuses to update an unknown organization or to an unknown plan', async () => {
		const unknown = await cli('orgs', 'update', 'nope', '--plan', 'business');
		expect(unknown.code).not.toBe(0);
		expect(unknown.stderr).toBe('lms-server: No organization with slug "nope".\n');

		const badPlan = await cli('orgs', 'update', 'acme', '--plan', 'free');
		expect(badPlan.code).not.toBe(0);
		expect(badPlan.stderr).toMatch(/Unknown plan "free"/);
	});
});
