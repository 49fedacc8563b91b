import { User } from '../../server/src/users/model';
import { verifyPassword } from '../../server/src/users/password';
import { runCli } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';

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

describe('lms-server users update | deactivate | reactivate', () => {
	let server: TestServer;
	let key: string;
	const cli = (args: string[]) => runCli(['users', ...args], { env: { DATABASE_URL: server.databaseUrl } });
	const api = async (path: string, init: { method?: string; body?: unknown } = {}) => {
		const res = await fetch(`${server.baseUrl}${path}`, {
			method: init.method ?? 'GET',
			headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
			body: init.body === undefined ? undefined : JSON.stringify(init.body),
		});
		// eslint-disable-next-line @typescript-eslint/no-explicit-any
		return { status: res.status, body: (await res.json()) as any };
	};

	beforeAll(async () => {
		server = await startTestServer();
		key = (await server.createKey('acme', ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments'])).key;
	});
	afterAll(() => server.stop());

	it('creates with an external id, updates, deactivates (naming what was withdrawn) and reactivates, through the same rules and events', async () => {
		const created = await cli(['create', '--org', 'acme', '--email', 'hr.sync@acme.test', '--name', 'Hr Sync', '--role', 'student', '--external-id', 'EMP-7', '--json']);
		expect(created).toMatchObject({ code: 0, stderr: '' });
		const user = JSON.parse(created.stdout);
		expect(user).toMatchObject({ email: 'hr.sync@acme.test', external_id: 'EMP-7', status: 'active', organization: 'acme', can_sign_in: false });

		const duplicate = await cli(['create', '--org', 'acme', '--email', 'other@acme.test', '--name', 'Other', '--role', 'student', '--external-id', 'EMP-7']);
		expect(duplicate.code).not.toBe(0);
		expect(duplicate.stderr).toMatch(/external_id "EMP-7" already exists in the organization/);

		const course = (await api('/api/v1/courses?per_page=1')).body.data[0];
		const enrollment = (await api('/api/v1/enrollments', { method: 'POST', body: { student_id: user.id, course_id: course.id } })).body;
		expect(enrollment.status).toBe('active');

		const updated = await cli(['update', user.id, '--name', 'Hr Synced', '--clear-external-id']);
		expect(updated).toMatchObject({ code: 0, stderr: '' });
		expect(updated.stdout).toMatch(/^Updated student hr\.sync@acme\.test \(usr_\w+\)\.\n$/);
		expect((await api(`/api/v1/users/${user.id}`)).body).toMatchObject({ name: 'Hr Synced', external_id: null });

		const deactivated = await cli(['deactivate', user.id]);
		expect(deactivated).toMatchObject({ code: 0, stderr: '' });
		expect(deactivated.stdout).toContain(`withdrew ${enrollment.id}`);
		expect((await api(`/api/v1/enrollments/${enrollment.id}`)).body.status).toBe('withdrawn');
		expect((await api(`/api/v1/users/${user.id}`)).body).toMatchObject({ status: 'deactivated', deactivated_at: expect.any(String) });

		const again = JSON.parse((await cli(['deactivate', user.id, '--json'])).stdout);
		expect(again).toMatchObject({ id: user.id, status: 'deactivated', withdrawn_enrollments: [] });

		const reactivated = JSON.parse((await cli(['reactivate', user.id, '--json'])).stdout);
		expect(reactivated).toMatchObject({ id: user.id, status: 'active', deactivated_at: null });
		expect((await api(`/api/v1/enrollments/${enrollment.id}`)).body.status).toBe('withdrawn');

		// On PostgreSQL the feed serves an event once no older transaction of the database is open: wait for all four.
		type Served = { type: string; data: { object: { id: string }; previous_attributes?: object } };
		const mine = async () => ((await api('/api/v1/events?type=user.*&limit=100')).body.data as Served[]).filter((e) => e.data.object.id === user.id);
		const events = await waitUntil(async () => {
			const served = await mine();
			return served.length >= 4 && served;
		}, { what: 'the four user events in the feed' });
		expect(events.map((e) => e.type)).toEqual(['user.created', 'user.updated', 'user.deactivated', 'user.reactivated']);
		expect(events[1].data.previous_attributes).toEqual({ name: 'Hr Sync', external_id: 'EMP-7' });
	});

	it('refuses bad requests with one line each and changes nothing', async () => {
		const student = JSON.parse(
			(await cli(['create', '--org', 'acme', '--email', 'refused@acme.test', '--name', 'Refused', '--role', 'student', '--json'])).stdout,
		);
		for (const [args, message] of [
			[['update', student.id], /nothing to change/],
			[['update', student.id, '--role', 'admin'], /admin role cannot be granted here/],
			[['update', student.id, '--email', 'nope'], /is not an e-mail address/],
			[['update', student.id, '--external-id', 'X', '--clear-external-id'], /not both/],
			[['update', 'usr_doesnotexist', '--name', 'X'], /No user usr_doesnotexist/],
			[['deactivate', 'enr_wrongkind'], /No user enr_wrongkind/],
			[['deactivate'], /missing required argument 'id'/],
		] as Array<[string[], RegExp]>) {
			const result = await cli(args);
			expect([args, result.code]).not.toEqual([args, 0]);
			expect(result.stderr.trim().split('\n')).toHaveLength(1);
			expect(result.stderr).toMatch(message);
		}
		expect((await api(`/api/v1/users/${student.id}`)).body).toMatchObject({ role: 'student', email: 'refused@acme.test', status: 'active' });
	});

	it('marks required options in help', async () => {
		const help = await cli(['create', '--help']);
		expect(help.stdout).toMatch(/--org <slug>\s+organization slug \(required\)/);
		expect((await cli(['--help'])).stdout).toMatch(/update[\s\S]*deactivate[\s\S]*reactivate/);
	});
});
