/**
 * SPEC §14, sign-in: failed sign-ins are throttled per account (at most 10 in 15 minutes,
 * whatever the IP) and per IP (at most 20 in 15 minutes); beyond that the sign-in page answers
 * 429 with Retry-After, even for the right password, until the window passes; every failed
 * sign-in is in the audit log. Clients are distinct loopback addresses (127.0.0.x): the server
 * sees distinct IPs without trusting any proxy header.
 */
import { scryptSync, randomBytes } from 'node:crypto';

import { Op } from 'sequelize';

import { SignInAttempt } from '../../server/src/sign-in/model';
import { User } from '../../server/src/users/model';
import { PageClient, type PageResponse } from '../helpers/page-client';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
}, 120_000);

afterAll(async () => {
	await server?.stop();
});

// Each test starts from an empty sign-in history, as if the last window had passed.
afterEach(async () => {
	await SignInAttempt.destroy({ where: {} });
});

function account(organization: string, role = 'super_admin') {
	return server.demo!.accounts.find((a) => a.organization === organization && a.role === role)!;
}

const client = (lastOctet: number) => new PageClient(server.baseUrl, `127.0.0.${lastOctet}`);

function expectThrottled(page: PageResponse): void {
	expect(page.status).toBe(429);
	const retryAfter = Number(page.headers['retry-after']);
	expect(retryAfter).toBeGreaterThanOrEqual(1);
	expect(retryAfter).toBeLessThanOrEqual(15 * 60);
	expect(page.body).toContain('Too many failed sign-ins.');
	expect([page.headers['set-cookie'] ?? []].flat().some((c) => c.startsWith('lms.sid='))).toBe(false);
}

/** Moves every recorded attempt back in time, as if the 15-minute window had passed. */
async function letWindowPass(): Promise<void> {
	await SignInAttempt.update(
		{ createdAt: new Date(Date.now() - 15 * 60 * 1000 - 1000) },
		{ where: { id: { [Op.ne]: '' } }, silent: true },
	);
}

test('10 failures for one account from 10 IPs lock out an 11th IP even with the right password, until the window passes', async () => {
	const { email, password } = account('acme');
	for (let i = 0; i < 10; i++) {
		const c = client(11 + i);
		const page = await c.signIn(email, `wrong-password-${i}`);
		expect(PageClient.signInOutcome(page)).toBe('refused');
		expect((await c.refusalPage(page)).body).toContain('Email or password is incorrect.');
	}
	const owner = client(31);
	expectThrottled(await owner.signIn(email, password));
	// The e-mail in another case is the same account.
	expectThrottled(await owner.signIn(email.toUpperCase(), password));
	// Other accounts are not affected.
	expect(PageClient.signInOutcome(await client(32).signIn(account('globex').email, account('globex').password))).toBe('signed-in');

	await letWindowPass();
	const after = await owner.signIn(email, password);
	expect(after.status).toBe(303);
	expect(after.headers.location).toBe('/settings');
	expect((await owner.get('/settings')).status).toBe(200);
});

test('20 failures from one IP, over many e-mails, throttle that IP for every account, and only that IP', async () => {
	const attacker = client(40);
	for (let i = 0; i < 20; i++) {
		expect(PageClient.signInOutcome(await attacker.signIn(`nobody${i}@example.test`, 'guess'))).toBe('refused');
	}
	const { email, password } = account('globex');
	expectThrottled(await attacker.signIn(email, password));
	expect(PageClient.signInOutcome(await client(41).signIn(email, password))).toBe('signed-in');
});

test('concurrent guesses cannot slip past the limit: of 25 at once, exactly 10 are checked', async () => {
	const { email, password } = account('acme', 'admin');
	const pages = await Promise.all(
		Array.from({ length: 25 }, async (_, i) => {
			const c = client(100 + i);
			const form = await c.get('/login');
			return c.post('/login', { email, password: `guess-${i}`, _csrf: PageClient.csrfToken(form) });
		}),
	);
	const outcomes = pages.map((p) => PageClient.signInOutcome(p));
	expect(outcomes.filter((s) => s === 'refused')).toHaveLength(10);
	expect(outcomes.filter((s) => s === 'throttled')).toHaveLength(15);
	expectThrottled(await client(130).signIn(email, password));
});

test('every failed sign-in is in the audit log with its IP and the e-mail attempted, never the password', async () => {
	const { email } = account('initech');
	const user = await User.findOne({ where: { email } });
	expect(PageClient.signInOutcome(await client(50).signIn(email, 'Secret-Guess-One'))).toBe('refused');
	expect(PageClient.signInOutcome(await client(51).signIn('Unknown.Person@Example.test', 'Secret-Guess-Two'))).toBe('refused');
	expect(PageClient.signInOutcome(await client(52).signIn('a\0b@x.com', 'Secret-Guess-Three'))).toBe('refused');

	const rows = await SignInAttempt.findAll({ order: [['createdAt', 'ASC']] });
	expect(rows.map((r) => ({ email: r.email, ip: r.ip, outcome: r.outcome, userId: r.userId }))).toEqual([
		{ email: email.toLowerCase(), ip: '127.0.0.50', outcome: 'failed', userId: user!.id },
		{ email: 'unknown.person@example.test', ip: '127.0.0.51', outcome: 'failed', userId: null },
		{ email: 'a\uFFFDb@x.com', ip: '127.0.0.52', outcome: 'failed', userId: null },
	]);
	expect(rows[0].organizationId).toBe(user!.organizationId);
	const stored = (await server.storedBytes()).toString('latin1');
	for (const guess of ['Secret-Guess-One', 'Secret-Guess-Two', 'Secret-Guess-Three']) expect(stored).not.toContain(guess);
});

test('a password hashed at an older, cheaper cost still signs in, and is rehashed at N = 2^17', async () => {
	const { email, password } = account('globex');
	const salt = randomBytes(16);
	const old = scryptSync(password.normalize('NFKC'), salt, 64, { N: 2 ** 14, r: 8, p: 1 });
	await User.update({ passwordHash: ['scrypt', 2 ** 14, 8, 1, salt.toString('base64'), old.toString('base64')].join('$') }, { where: { email } });

	expect(PageClient.signInOutcome(await client(60).signIn(email, password))).toBe('signed-in');
	const upgraded = (await User.findOne({ where: { email } }))!.passwordHash!;
	expect(upgraded).toMatch(/^scrypt\$131072\$8\$1\$/);
	expect(PageClient.signInOutcome(await client(61).signIn(email, password))).toBe('signed-in');
	expect(PageClient.signInOutcome(await client(62).signIn(email, 'not it'))).toBe('refused');
});

test('new passwords are hashed with scrypt N = 2^17', async () => {
	const hashes = (await User.findAll({ where: { passwordHash: { [Op.ne]: null } } })).map((u) => u.passwordHash);
	expect(hashes.length).toBeGreaterThan(0);
	for (const hash of hashes) expect(hash).toMatch(/^scrypt\$131072\$8\$1\$/);
});
