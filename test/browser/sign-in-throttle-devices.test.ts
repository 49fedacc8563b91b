/**
 * Issue 27, finding 7: the sign-in throttle's two holes.
 * - IPv6: one subscriber holds a whole prefix, so the per-IP count groups IPv6 addresses by /56,
 *   as the request limiter does; 25 guesses from one /64 are not 25 fresh IPs.
 * - Lock-out by e-mail: following OWASP's device cookies, a browser that signed in to an account
 *   before carries a signed device cookie and is not held back by that account's failure count
 *   (only by its own failures); every other browser still is.
 * The server trusts loopback as its proxy, so each client names its address in X-Forwarded-For.
 */
import { Op } from 'sequelize';

import { SignInAttempt } from '../../server/src/sign-in/model';
import { PageClient, type PageResponse } from '../helpers/page-client';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000', TRUST_PROXY: 'loopback' } });
}, 120_000);

afterAll(async () => {
	await server?.stop();
});

afterEach(async () => {
	await SignInAttempt.destroy({ where: {} });
});

function account(organization: string, role = 'super_admin') {
	return server.demo!.accounts.find((a) => a.organization === organization && a.role === role)!;
}

const from = (address: string) => new PageClient(server.baseUrl, '127.0.0.1', { 'X-Forwarded-For': address });

function expectThrottled(page: PageResponse): void {
	expect(page.status).toBe(429);
	expect(page.body).toContain('Too many failed sign-ins.');
}

async function signOut(client: PageClient): Promise<void> {
	const page = await client.get('/logout');
	expect((await client.post('/logout', { _csrf: PageClient.csrfToken(page) })).status).toBe(303);
}

test('25 guesses from 25 addresses of one IPv6 /64: 20 are checked, the rest throttled; another /56 is not', async () => {
	const outcomes: Array<ReturnType<typeof PageClient.signInOutcome>> = [];
	for (let i = 1; i <= 25; i++) {
		outcomes.push(PageClient.signInOutcome(await from(`2001:db8:1:2::${i.toString(16)}`).signIn(`nobody${i}@example.test`, 'guess')));
	}
	expect(outcomes.filter((s) => s === 'refused')).toHaveLength(20);
	expect(outcomes.filter((s) => s === 'throttled')).toHaveLength(5);
	// Elsewhere in the same /56 too: the subscriber's whole prefix is one client.
	expectThrottled(await from('2001:db8:1:ff::1').signIn('someone@example.test', 'guess'));
	const { email, password } = account('globex');
	expect(PageClient.signInOutcome(await from('2001:db8:1:100::1').signIn(email, password))).toBe('signed-in');
}, 240_000);

test('an attacker who knows the e-mail holds back new browsers, never the browser its owner signed in with before', async () => {
	const { email, password } = account('acme');
	const owner = from('203.0.113.7');
	expect(PageClient.signInOutcome(await owner.signIn(email, password))).toBe('signed-in');
	const device = owner.cookie('lms.device');
	expect(device).toBeDefined();
	await signOut(owner);
	expect(owner.cookie('lms.device')).toBe(device);

	// 30 failures for the account from 30 addresses: the account's count is far over its limit.
	for (let i = 0; i < 30; i++) {
		const page = await from(`198.51.100.${i + 1}`).signIn(email, `wrong-${i}`);
		expect(['refused', 'throttled']).toContain(PageClient.signInOutcome(page));
	}
	// A new browser, even at the owner's own address, is held back...
	expectThrottled(await from('203.0.113.7').signIn(email, password));
	// ...the owner's browser is not.
	const back = await owner.signIn(email, password);
	expect(PageClient.signInOutcome(back)).toBe('signed-in');
	expect(back.headers.location).toBe('/settings');
	expect((await owner.get('/settings')).status).toBe(200);
}, 240_000);

test("a device cookie counts its own failures, helps only its own account, and cannot be forged", async () => {
	const { email, password } = account('globex');
	const other = account('initech');
	const browser = from('203.0.113.20');
	expect(PageClient.signInOutcome(await browser.signIn(email, password))).toBe('signed-in');
	await signOut(browser);
	// Somebody else's account from this browser: the cookie does not exempt it.
	for (let i = 0; i < 10; i++) expect(PageClient.signInOutcome(await from(`198.51.100.${100 + i}`).signIn(other.email, `wrong-${i}`))).toBe('refused');
	expectThrottled(await browser.signIn(other.email, other.password));

	// The cookie's own failures: 10 wrong passwords from it, then it is held back like any browser.
	await SignInAttempt.destroy({ where: { id: { [Op.ne]: '' } } });
	for (let i = 0; i < 10; i++) expect(PageClient.signInOutcome(await browser.signIn(email, `wrong-${i}`))).toBe('refused');
	expectThrottled(await browser.signIn(email, password));

	// A cookie that was not signed by the server is worth nothing.
	await SignInAttempt.destroy({ where: { id: { [Op.ne]: '' } } });
	for (let i = 0; i < 10; i++) expect(PageClient.signInOutcome(await from(`198.51.100.${120 + i}`).signIn(email, `wrong-${i}`))).toBe('refused');
	const forger = from('203.0.113.21');
	const value = browser.cookie('lms.device')!;
	forger.setCookie('lms.device', `${value.slice(0, -4)}AAAA`);
	expectThrottled(await forger.signIn(email, password));
}, 240_000);
