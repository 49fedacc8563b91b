import { User } from '../../server/src/users/model';
import { verifyPassword } from '../../server/src/users/password';
import { runCli } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';

describe('lms-server users create', () => {
	let server: TestServer;
	const cli = (args: string[], opts: { env?: Record<string, string>; input?: string } = {}) =>
		runCli(['users', 'create', ...args], { input: opts.input, env: { DATABASE_URL: server.databaseUrl, ...opts.env } });
	const stored = (email: string) => User.findOne({ where: { emailLower: email.toLowerCase() } });

	beforeAll(async () => {
		server = await startTestServer();
	});
	afterAll(() => server.stop());

	it('takes the password from LMS_PASSWORD', async () => {
		const result = await cli(['--org', 'acme', '--email', 'Dana.Scully@acme.test', '--name', 'Dana Scully', '--role', 'super_admin', '--json'], {
			env: { LMS_PASSWORD: 'trust-no-one-1013' },
		});
		expect(result).toMatchObject({ code: 0, stderr: '' });
		const json = JSON.parse(result.stdout);
		expect(json).toMatchObject({ email: 'Dana.Scully@acme.test', role: 'super_admin', organization: 'acme', can_sign_in: true });
		expect(json.id).toMatch(/^usr_/);
		expect(result.stdout).not.toContain('trust-no-one');

		const user = await stored('dana.scully@acme.test');
		expect(user!.passwordHash).toMatch(/^scrypt\$/);
		expect(await verifyPassword('trust-no-one-1013', user!.passwordHash)).toBe(true);
	});

	it('reads the password from stdin, without the trailing newline', async () => {
		const result = await cli(['--org', 'globex', '--email', 'fox@globex.test', '--name', 'Fox Mulder', '--role', 'admin'], {
			input: 'i-want-to-believe\n',
		});
		expect(result.code).toBe(0);
		expect(result.stdout).toMatch(/Created admin fox@globex.test \(usr_\w+\) in globex, with a password\./);
		expect(await verifyPassword('i-want-to-believe', (await stored('fox@globex.test'))!.passwordHash)).toBe(true);
	});

	it('creates a student without a password when none is given; that account cannot sign in', async () => {
		const result = await cli(['--org', 'acme', '--email', 'new.student@acme.test', '--name', 'New Student', '--role', 'student']);
		expect(result.code).toBe(0);
		expect(result.stdout).toMatch(/without a password/);
		expect((await stored('new.student@acme.test'))!.passwordHash).toBeNull();

		const res = await fetch(`${server.baseUrl}/api/v1/users?email=new.student%40acme.test`, {
			headers: { Authorization: `Bearer ${(await server.createKey('acme', ['read:users'])).key}` },
		});
		expect(((await res.json()) as { data: unknown[] }).data).toMatchObject([{ email: 'new.student@acme.test', role: 'student', name: 'New Student' }]);
	});

	it('refuses an admin or super_admin without a password', async () => {
		for (const role of ['admin', 'super_admin']) {
			const result = await cli(['--org', 'acme', '--email', `no.pw.${role}@acme.test`, '--name', 'No Password', '--role', role]);
			expect(result.code).not.toBe(0);
			expect(result.stderr).toMatch(/needs a password: set LMS_PASSWORD or pipe it on stdin/);
			expect(await stored(`no.pw.${role}@acme.test`)).toBeNull();
		}
	});

	it('refuses bad input with one line each', async () => {
		for (const [args, message, input] of [
			[['--org', 'nope', '--email', 'a@b.test', '--name', 'A', '--role', 'student'], /No organization with slug "nope"/],
			[['--org', 'acme', '--email', 'not-an-email', '--name', 'A', '--role', 'student'], /is not an e-mail address/],
			[['--org', 'acme', '--email', 'a@acme.test', '--name', 'A', '--role', 'owner'], /Unknown role "owner"/],
			[['--org', 'acme', '--email', 'DANA.SCULLY@acme.test', '--name', 'Dup', '--role', 'student'], /already exists/],
			[['--org', 'acme', '--email', 'short@acme.test', '--name', 'A', '--role', 'admin'], /at least 8 characters/, 'short\n'],
		] as Array<[string[], RegExp, string?]>) {
			const result = await cli(args, { input });
			expect(result.code).not.toBe(0);
			expect(result.stderr.trim().split('\n')).toHaveLength(1);
			expect(result.stderr).toMatch(message);
		}
	});

	it('has no --password option: a password never goes on the command line', async () => {
		const result = await cli(['--org', 'acme', '--email', 'argv@acme.test', '--name', 'A', '--role', 'student', '--password', 'hunter22hunter22']);
		expect(result.code).not.toBe(0);
		expect(result.stderr).toMatch(/unknown option '--password'/);
	});
});
