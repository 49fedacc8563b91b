import { runCli, type CliResult } from '../helpers/cli';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

/** Operator mistakes: one line on stderr naming the problem, nothing on stdout, non-zero exit. */
describe('lms-server errors', () => {
	let db: TestDatabase;
	const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { DATABASE_URL: db.databaseUrl, ...env } });

	const expectOneLineError = (result: CliResult, message: RegExp, code = 1) => {
		expect(result.code).toBe(code);
		expect(result.stdout).toBe('');
		expect(result.stderr).toMatch(/^lms-server: [^\n]+\n$/);
		expect(result.stderr).toMatch(message);
	};

	beforeAll(async () => {
		db = await createTestDatabase();
		expect((await cli(['seed', '--demo', '--json'])).code).toBe(0);
	});
	afterAll(() => db.remove());

	// A bad value on the command line exits 2; a well-formed command the database refuses exits 1.
	it.each([
		['an unknown organization', ['--org', 'nope', '--label', 'L', '--scopes', 'read:users'], /No organization with slug "nope"/, 1],
		['a business-plan organization', ['--org', 'initech', '--label', 'L', '--scopes', 'read:users'], /Enterprise plan only/, 1],
		['no scopes', ['--org', 'acme', '--label', 'L'], /Select at least one scope/, 2],
		['an empty scope list', ['--org', 'acme', '--label', 'L', '--scopes', ','], /Select at least one scope/, 2],
		['an unknown scope', ['--org', 'acme', '--label', 'L', '--scopes', 'read:users,admin:all'], /Unknown scope admin:all/, 2],
		['no label', ['--org', 'acme', '--scopes', 'read:users'], /label of 1 to 100 characters/, 2],
		['a blank label', ['--org', 'acme', '--label', '   ', '--scopes', 'read:users'], /label of 1 to 100 characters/, 2],
		['a label over 100 characters', ['--org', 'acme', '--label', 'x'.repeat(101), '--scopes', 'read:users'], /label of 1 to 100 characters/, 2],
	])('keys create refuses %s', async (_case, args, message, code) => {
		expectOneLineError(await cli(['keys', 'create', ...args, '--json']), message, code);
	});

	it('keys rotate and revoke refuse an unknown id', async () => {
		expectOneLineError(await cli(['keys', 'rotate', 'key_doesnotexist']), /No API key key_doesnotexist/);
		expectOneLineError(await cli(['keys', 'revoke', 'key_doesnotexist', '--json']), /No API key key_doesnotexist/);
	});

	it('refused key commands leave no key behind', async () => {
		const listed = await cli(['keys', 'list', '--org', 'acme', '--json']);
		expect(JSON.parse(listed.stdout)).toEqual([]);
	});

	it.each([
		['PORT', { PORT: 'eighty' }],
		['PORT', { PORT: '70000' }],
		['DATABASE_URL', { DATABASE_URL: 'mysql://localhost/lms' }],
		['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
		['RATE_LIMIT_PER_MINUTE', { RATE_LIMIT_PER_MINUTE: '0' }],
		['TRUST_PROXY', { TRUST_PROXY: 'true' }],
		['SESSION_SECRET', { NODE_ENV: 'production' }],
		// Spelled any way, production never falls back to a random per-process secret.
		['SESSION_SECRET', { NODE_ENV: 'Production' }],
		['SESSION_SECRET', { NODE_ENV: ' PRODUCTION ' }],
		['EVENT_RETENTION_DAYS', { EVENT_RETENTION_DAYS: '0' }],
		['EVENT_RETENTION_DAYS', { EVENT_RETENTION_DAYS: 'thirty' }],
		['EVENT_RETENTION_DAYS', { EVENT_RETENTION_DAYS: '7.5' }],
	])('bad configuration stops with one line naming %s', async (variable, env) => {
		for (const command of [['keys', 'list', '--org', 'acme'], ['migrate'], ['start']]) {
			const result = await cli(command, env);
			expectOneLineError(result, new RegExp(`invalid configuration: ${variable}\\b`));
		}
	});

	it.each([['0.0.0.0/0'], ['::/0'], ['1000000'], ['1'], ['0.0.0.0/1,128.0.0.0/1'], ['not-an-address']])(
		'start refuses TRUST_PROXY=%s with one line naming the variable',
		async (value) => {
			expectOneLineError(await cli(['start'], { TRUST_PROXY: value, PORT: '0' }), /^lms-server: invalid configuration: TRUST_PROXY: /);
		},
	);

	it('usage errors exit 2 with one line', async () => {
		expectOneLineError(await cli(['bogus']), /unknown command 'bogus'/, 2);
		expectOneLineError(await cli(['keys', 'list']), /required option '--org <slug>' not specified/, 2);
		expectOneLineError(await cli(['keys', 'create', '--org', 'acme', '--colour', 'red']), /unknown option '--colour'/, 2);
		expectOneLineError(await cli(['orgs', 'update', 'acme']), /required option '--plan <plan>'/, 2);
	});

	it('seed without --demo says what to do', async () => {
		expectOneLineError(await cli(['seed']), /pass --demo/, 2);
	});

	it('--help prints usage and exits 0', async () => {
		const result = await cli(['--help']);
		expect(result.code).toBe(0);
		for (const command of ['start', 'migrate', 'seed', 'orgs', 'users', 'keys']) expect(result.stdout).toContain(command);
		const keys = await cli(['keys', 'create', '--help']);
		expect(keys.stdout).toMatch(/--scopes <list>/);
	});

	it('a database it cannot open is one line too', async () => {
		// A directory that cannot exist: its parent is the (regular) SQLite file of this test.
		const DATABASE_URL = `${db.databaseUrl}/nested/lms.sqlite`;
		// migrate may create a database, and cannot here…
		expectOneLineError(await cli(['migrate'], { DATABASE_URL }), /cannot open the database named by DATABASE_URL/);
		// …and an everyday command does not try: on SQLite it says where it looked (PostgreSQL names no file).
		expectOneLineError(
			await cli(['keys', 'list', '--org', 'acme'], { DATABASE_URL }),
			db.dialect === 'sqlite' ? /no database at .*nested\/lms\.sqlite/ : /cannot open the database named by DATABASE_URL/,
		);
	});
});
