/**
 * SPEC §14 on the settings pages: anonymous page views create no session row; CSRF still
 * guards the sign-in form; a new key's secret is shown once even to concurrent requests of one
 * session; NUL bytes never cause a 5xx.
 */

import { ApiKey } from '../../server/src/api-keys/model';
import { database } from '../../server/src/db';
import { PageClient } from '../helpers/page-client';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
}, 120_000);

afterAll(async () => {
	await server?.stop();
});

function superAdmin(organization = 'acme') {
	return server.demo!.accounts.find((a) => a.organization === organization && a.role === 'super_admin')!;
}

async function sessionRows(): Promise<number> {
	const [row] = await database().rows<{ n: number | string }>('SELECT COUNT(*) AS n FROM sessions');
	return Number(row.n);
}

async function signedIn(organization = 'acme'): Promise<PageClient> {
	const client = new PageClient(server.baseUrl);
	const { email, password } = superAdmin(organization);
	const res = await client.signIn(email, password);
	expect(res.status).toBe(303);
	return client;
}

describe('sessions', () => {
	test('anonymous page views store no session and set no session cookie', async () => {
		const before = await sessionRows();
		const pages = await Promise.all(
			Array.from({ length: 20 }, (_, i) => new PageClient(server.baseUrl).get(['/login', '/settings', '/logout', '/settings/api-keys'][i % 4])),
		);
		for (const page of pages) {
			expect([200, 303]).toContain(page.status);
			expect([page.headers['set-cookie'] ?? []].flat().some((c) => c.startsWith('lms.sid='))).toBe(false);
		}
		// A wrong password is no reason to keep a session either.
		expect(PageClient.signInOutcome(await new PageClient(server.baseUrl).signIn(superAdmin().email, 'wrong'))).toBe('refused');
		expect(await sessionRows()).toBe(before);

		await signedIn();
		expect(await sessionRows()).toBe(before + 1);
	});

	test('the sign-in form still needs its own CSRF token: missing, altered or another visitor’s is refused', async () => {
		const { email, password } = superAdmin();
		const visitor = new PageClient(server.baseUrl);
		const token = PageClient.csrfToken(await visitor.get('/login'));
		const other = PageClient.csrfToken(await new PageClient(server.baseUrl).get('/login'));
		const altered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;

		for (const _csrf of [undefined, '', altered, other, `${token}x`, token.slice(1)]) {
			const form: Record<string, string> = { email, password };
			if (_csrf !== undefined) form._csrf = _csrf;
			const res = await visitor.post('/login', form);
			expect(res.status).toBe(403);
			expect(res.body).toContain('This form has expired');
		}
		// The right token without the cookie it belongs to is refused too (a forged cross-site form).
		const stranger = new PageClient(server.baseUrl);
		expect((await stranger.post('/login', { email, password, _csrf: token })).status).toBe(403);

		expect(PageClient.signInOutcome(await visitor.post('/login', { email, password, _csrf: token }))).toBe('signed-in');
		// Signed in, forms carry the session's token; the sign-in cookie's is no longer accepted.
		expect(visitor.cookie('lms.csrf')).toBeUndefined();
		const keysPage = await visitor.get('/settings/api-keys');
		expect(keysPage.status).toBe(200);
		expect((await visitor.post('/settings/api-keys', { label: 'x', scopes: 'read:users', _csrf: token })).status).toBe(403);
		const sessionToken = PageClient.csrfToken(keysPage);
		expect(sessionToken).not.toBe(token);
		expect((await visitor.post('/logout', { _csrf: sessionToken })).status).toBe(303);
	});
});

describe('a new key is shown once', () => {
	test('of concurrent requests for the new-key page in one session, exactly one shows the secret', async () => {
		const client = await signedIn();
		const page = await client.get('/settings/api-keys');
		const created = await client.post('/settings/api-keys', { label: 'shown once', scopes: 'read:users', _csrf: PageClient.csrfToken(page) });
		expect(created.status).toBe(303);
		expect(created.headers.location).toBe('/settings/api-keys/new-key');

		const views = await Promise.all(Array.from({ length: 6 }, () => client.get('/settings/api-keys/new-key')));
		const shown = views.filter((v) => v.status === 200);
		expect(shown).toHaveLength(1);
		for (const other of views.filter((v) => v.status !== 200)) {
			expect(other.status).toBe(303);
			expect(other.headers.location).toBe('/settings/api-keys');
			expect(other.body).not.toMatch(/lms_[0-9A-Za-z]{38}/);
		}
		const secret = /lms_[0-9A-Za-z]{38}/.exec(shown[0].body)![0];
		const api = await fetch(`${server.baseUrl}/api/v1/users?per_page=1`, { headers: { Authorization: `Bearer ${secret}` } });
		expect(api.status).toBe(200);
		// And never again.
		expect((await client.get('/settings/api-keys/new-key')).status).toBe(303);
		// Nothing of it is left waiting in the database.
		expect((await server.storedBytes()).includes(secret)).toBe(false);
	});
});

describe('NUL bytes', () => {
	test('in the sign-in e-mail or password: a failed sign-in, never a 5xx', async () => {
		const { email, password } = superAdmin('globex');
		for (const [e, p] of [
			['a\0b@x.com', 'whatever'],
			[`${email}\0`, password],
			[email, `${password}\0`],
			[email, `${password.slice(0, 3)}\0${password.slice(3)}`],
			['\0', '\0'],
		]) {
			const client = new PageClient(server.baseUrl, '127.0.0.77');
			const res = await client.signIn(e, p);
			expect(PageClient.signInOutcome(res)).toBe('refused');
			expect((await client.refusalPage(res)).body).toContain('Email or password is incorrect.');
		}
	});

	test('anywhere else on the settings pages: a 4xx page that says why, never a 5xx', async () => {
		const client = await signedIn();
		const { id } = await server.createKey('acme', ['read:users'], 'nul target');
		const token = PageClient.csrfToken(await client.get('/settings/api-keys'));
		const inAddress = [
			await client.get('/login?next=%00'),
			await client.get('/settings?x=%00'),
			await client.get(`/settings/api-keys/${id}%00/rotate`),
			await client.get('/settings/api-keys/%00/revoke'),
			await client.post(`/settings/api-keys/${id}%00/rotate`, { _csrf: token }),
			await client.post('/settings/api-keys/%00/revoke', { _csrf: token }),
		];
		for (const answer of inAddress) {
			expect(answer.status).toBe(400);
			expect(answer.headers['content-type']).toMatch(/^text\/html/);
			expect(answer.body).toContain('Request not accepted');
		}
		// Refused forms redirect back to their page (post/redirect/get), which says why once.
		const label = await client.post('/settings/api-keys', { label: 'a\0b', scopes: 'read:users', _csrf: token });
		expect({ status: label.status, location: label.headers.location }).toEqual({ status: 303, location: '/settings/api-keys' });
		expect((await client.get('/settings/api-keys')).body).toContain('The label contains control characters');
		const scope = await client.post('/settings/api-keys', { label: 'ok', scopes: 'read:users\0', _csrf: token });
		expect(scope.status).toBe(303);
		expect((await client.get('/settings/api-keys')).body).toContain('Unknown scope');
		const csrf = await client.post('/logout', { _csrf: `${token}\0` });
		expect(csrf.status).toBe(403);
		expect(csrf.body).toContain('This form has expired');
		// The key the requests named is untouched, and the session still works.
		expect((await ApiKey.findByPk(id))!.status).toBe('active');
		expect((await client.get('/settings/api-keys')).status).toBe(200);
	});
});
