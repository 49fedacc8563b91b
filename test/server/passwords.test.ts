/**
 * Passwords (SPEC §22): Settings → Change password, `lms-server users set-password` and the
 * operator's one-time reset link, over HTTP and the real CLI against the real server's database.
 */
import { createHash } from 'node:crypto';

import { AuditEvent } from '../../server/src/api-keys/model';
import { database } from '../../server/src/db';
import { findOrganization } from '../../server/src/organizations/service';
import { User } from '../../server/src/users/model';
import { verifyPassword } from '../../server/src/users/password';
import { createUser } from '../../server/src/users/service';
import { runCli } from '../helpers/cli';
import { PageClient } from '../helpers/page-client';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let seq = 0;

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
}, 60_000);
afterAll(() => server?.stop());

/** A fresh admin of acme per test, so tests do not depend on each other's passwords. */
async function newAdmin(password = 'first-password-1'): Promise<User> {
	seq += 1;
	return createUser({ organization: await findOrganization('acme'), email: `pw.admin.${seq}@acme.test`, name: `Password Admin ${seq}`, role: 'admin', password });
}

const cli = (args: string[], input = '') => runCli(['users', ...args], { input, env: { DATABASE_URL: server.databaseUrl, HOST: '127.0.0.1', PORT: '4321' } });
const storedHash = async (id: string) => (await User.findByPk(id))!.passwordHash;
const audits = (userId: string) => AuditEvent.findAll({ where: { userId }, order: [['createdAt', 'ASC']] });

async function signedIn(email: string, password: string): Promise<PageClient> {
	const client = new PageClient(server.baseUrl);
	const res = await client.signIn(email, password);
	expect(res).toMatchObject({ status: 303, headers: { location: '/settings' } });
	return client;
}

async function changePassword(client: PageClient, form: Record<string, string>) {
	const page = await client.get('/settings/password');
	return client.post('/settings/password', { _csrf: PageClient.csrfToken(page), ...form });
}

describe('Settings → Change password', () => {
	it('needs the current password, keeps this session, ends the others, and is audited', async () => {
		const user = await newAdmin();
		const here = await signedIn(user.email, 'first-password-1');
		const elsewhere = await signedIn(user.email, 'first-password-1');

		const done = await changePassword(here, { current_password: 'first-password-1', new_password: 'second-password-2', repeat_password: 'second-password-2' });
		expect(done).toMatchObject({ status: 303, headers: { location: '/settings' } });
		expect((await here.get('/settings')).body).toContain('Password changed.');
		expect(await verifyPassword('second-password-2', await storedHash(user.id))).toBe(true);

		// The other browser is signed out at its next request; the new password signs in, the old does not.
		expect(await elsewhere.get('/settings')).toMatchObject({ status: 303, headers: { location: '/login' } });
		expect(PageClient.signInOutcome(await new PageClient(server.baseUrl).signIn(user.email, 'first-password-1'))).toBe('refused');
		await signedIn(user.email, 'second-password-2');

		expect(await audits(user.id)).toMatchObject([{ action: 'password.changed', actor: user.id, actorName: user.email, apiKeyId: '' }]);
	});

	it.each([
		['a wrong current password', { current_password: 'not-my-password', new_password: 'second-password-2', repeat_password: 'second-password-2' }, 'The current password is not right'],
		['a short new password', { current_password: 'first-password-1', new_password: 'short', repeat_password: 'short' }, 'at least 8 characters'],
		['two different new passwords', { current_password: 'first-password-1', new_password: 'second-password-2', repeat_password: 'second-password-3' }, 'The two passwords differ'],
	])('refuses %s with a redirect back to the form, which says why once; nothing changes', async (_what, form, reason) => {
		const user = await newAdmin();
		const before = await storedHash(user.id);
		const client = await signedIn(user.email, 'first-password-1');
		const refused = await changePassword(client, form);
		// Post/redirect/get: Back or Reload never resends the form.
		expect(refused).toMatchObject({ status: 303, headers: { location: '/settings/password' } });
		const shown = await client.get('/settings/password');
		expect(shown.body).toContain(reason);
		expect(shown.body).not.toContain(form.new_password);
		expect((await client.get('/settings/password')).body).not.toContain(reason);
		expect(await storedHash(user.id)).toBe(before);
		expect(await audits(user.id)).toEqual([]);
	});
});

describe('lms-server users set-password', () => {
	it('sets the password read from stdin, ends every session and is audited as the command line', async () => {
		const user = await newAdmin();
		const session = await signedIn(user.email, 'first-password-1');
		const result = await cli(['set-password', '--email', user.email.toUpperCase()], 'operator-chosen-9\n');
		expect(result).toMatchObject({ code: 0, stderr: '' });
		expect(result.stdout).toContain(`Password set for ${user.email} (${user.id}); their sessions ended.`);
		expect(await verifyPassword('operator-chosen-9', await storedHash(user.id))).toBe(true);
		expect(await session.get('/settings')).toMatchObject({ status: 303, headers: { location: '/login' } });
		expect(await audits(user.id)).toMatchObject([{ action: 'password.set', actor: 'cli', actorName: 'cli' }]);
	});

	it('takes no password as an argument (a usage error, exit 2) and refuses what the rule refuses (exit 1)', async () => {
		const user = await newAdmin();
		const before = await storedHash(user.id);
		const asArgument = await cli(['set-password', '--email', user.email, '--password', 'on-the-command-line']);
		expect(asArgument.code).toBe(2);
		expect(asArgument.stderr).toMatch(/unknown option '--password'/);
		const short = await cli(['set-password', '--email', user.email], 'short\n');
		expect(short).toMatchObject({ code: 1, stderr: 'lms-server: The password must be at least 8 characters.\n' });
		const none = await cli(['set-password', '--email', user.email]);
		expect(none.code).toBe(1);
		expect(none.stderr).toMatch(/no password given/);
		const student = await cli(['set-password', '--email', server.demo!.accounts.find((a) => a.role === 'admin')!.email.replace(/^[^@]+/, 'nobody.here')], 'long-enough-1\n');
		expect(student.code).toBe(1);
		expect(student.stderr).toMatch(/No admin or super admin has the e-mail/);
		expect(await storedHash(user.id)).toBe(before);
		expect(await audits(user.id)).toEqual([]);
	});
});

describe('reset links (lms-server users reset-link)', () => {
	async function resetLink(user: User): Promise<{ url: string; path: string; token: string }> {
		const result = await cli(['reset-link', '--email', user.email, '--json']);
		expect(result).toMatchObject({ code: 0, stderr: '' });
		const { url, expires_at: expiresAt } = JSON.parse(result.stdout) as { url: string; expires_at: string };
		// An hour from now, on the address the server is configured to be reached at.
		expect(Math.abs(Date.parse(expiresAt) - Date.now() - 3_600_000)).toBeLessThan(60_000);
		expect(url).toMatch(/^http:\/\/127\.0\.0\.1:4321\/login\/reset\/[A-Za-z0-9_-]{43}$/);
		const path = new URL(url).pathname;
		return { url, path, token: path.split('/').pop()! };
	}

	async function submit(client: PageClient, path: string, password: string, repeat = password) {
		const page = await client.get(path);
		expect(page.status).toBe(200);
		return client.post(path, { _csrf: PageClient.csrfToken(page), new_password: password, repeat_password: repeat });
	}

	it('opens once: sets the password, ends the sessions, is stored as a digest only, and is audited', async () => {
		const user = await newAdmin();
		const session = await signedIn(user.email, 'first-password-1');
		const { path, token } = await resetLink(user);
		// Only the digest is kept. (Not server.storedBytes(): on SQLite, reading the file from this
		// process drops its POSIX locks, and the CLI writing beside it then corrupts the database.)
		const rows = await database().rows<Record<string, unknown>>('SELECT * FROM password_reset_links WHERE user_id = $1', [user.id]);
		expect(rows).toMatchObject([{ token_hash: createHash('sha256').update(token).digest('hex') }]);
		expect(JSON.stringify(rows)).not.toContain(token);

		const anonymous = new PageClient(server.baseUrl);
		// Opening the link (a mail scanner, a preview) uses nothing up.
		expect((await anonymous.get(path)).body).toContain(user.email);
		const weak = await submit(anonymous, path, 'short');
		expect(weak).toMatchObject({ status: 303, headers: { location: `${path}?error=weak_password` } });
		expect((await anonymous.get(weak.headers.location as string)).body).toContain('at least 8 characters');

		const done = await submit(anonymous, path, 'from-the-link-7');
		expect(done).toMatchObject({ status: 303, headers: { location: '/login?reset=done' } });
		expect((await anonymous.get('/login?reset=done')).body).toContain('Your new password is set');
		expect(await verifyPassword('from-the-link-7', await storedHash(user.id))).toBe(true);
		expect(await session.get('/settings')).toMatchObject({ status: 303, headers: { location: '/login' } });

		const again = await anonymous.get(path);
		expect(again.status).toBe(410);
		expect(again.body).toContain('expired or was already used');
		expect((await audits(user.id)).map((a) => a.action)).toEqual(['password.link', 'password.reset']);
	});

	it('is refused after an hour, and a newer password voids the links still open', async () => {
		const user = await newAdmin();
		const old = await resetLink(user);
		const db = database();
		await db.run(`UPDATE password_reset_links SET expires_at = ${db.storedTime('$1')} WHERE user_id = $2`, [new Date(Date.now() - 1000).toISOString(), user.id]);
		expect((await new PageClient(server.baseUrl).get(old.path)).status).toBe(410);

		const open = await resetLink(user);
		expect((await cli(['set-password', '--email', user.email], 'operator-chosen-9\n')).code).toBe(0);
		expect((await new PageClient(server.baseUrl).get(open.path)).status).toBe(410);
		expect(await verifyPassword('operator-chosen-9', await storedHash(user.id))).toBe(true);
	});

	it('sets the password once when two browsers submit the same link at the same moment', async () => {
		const user = await newAdmin();
		const { path } = await resetLink(user);
		const [a, b] = [new PageClient(server.baseUrl), new PageClient(server.baseUrl)];
		const [pageA, pageB] = await Promise.all([a.get(path), b.get(path)]);
		const answers = await Promise.all([
			a.post(path, { _csrf: PageClient.csrfToken(pageA), new_password: 'racer-number-one', repeat_password: 'racer-number-one' }),
			b.post(path, { _csrf: PageClient.csrfToken(pageB), new_password: 'racer-number-two', repeat_password: 'racer-number-two' }),
		]);
		const winners = answers.filter((r) => r.headers.location === '/login?reset=done');
		expect(winners).toHaveLength(1);
		const winner = winners[0] === answers[0] ? 'racer-number-one' : 'racer-number-two';
		expect(await verifyPassword(winner, await storedHash(user.id))).toBe(true);
		expect((await audits(user.id)).map((a) => a.action)).toEqual(['password.link', 'password.reset']);
	});

	it('answers an unknown or malformed link with the same page, and refuses a student', async () => {
		for (const path of ['/login/reset/not-a-token', `/login/reset/${'A'.repeat(43)}`]) {
			const res = await new PageClient(server.baseUrl).get(path);
			expect(res.status).toBe(410);
		}
		const student = await cli(['reset-link', '--email', 'someone.else@acme.test']);
		expect(student.code).toBe(1);
	});
});
