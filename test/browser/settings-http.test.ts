/**
 * The settings pages' HTTP contract, where a browser would hide the detail: cookie flags
 * behind an HTTPS proxy, headers, and what the settings middleware leaves alone.
 */
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;

beforeAll(async () => {
	// One trusted proxy in front, which terminates HTTPS and says so in X-Forwarded-Proto.
	server = await startTestServer({ env: { TRUST_PROXY: 'loopback', RATE_LIMIT_PER_MINUTE: '100000' } });
}, 60_000);

afterAll(async () => {
	await server?.stop();
});

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
	return fetch(`${server.baseUrl}${path}`, { headers, redirect: 'manual' });
}

function sessionCookie(res: Response): string | undefined {
	return res.headers.getSetCookie().find((c) => c.startsWith('lms.sid='));
}

function cookieNamed(res: Response, name: string): string | undefined {
	return res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
}

/** Signs the demo Super Admin in through the form, as a browser behind the proxy would. */
async function signIn(headers: Record<string, string>): Promise<Response> {
	const form = await get('/login', headers);
	const csrf = cookieNamed(form, 'lms.csrf')!.split(';')[0];
	const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
	const { email, password } = server.demo!.accounts.find((a) => a.organization === 'acme' && a.role === 'super_admin')!;
	return fetch(`${server.baseUrl}/login`, {
		method: 'POST',
		headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded', Cookie: csrf },
		body: new URLSearchParams({ email, password, _csrf: token }),
		redirect: 'manual',
	});
}

test('behind a trusted HTTPS proxy the cookies are Secure, HttpOnly and SameSite=Lax', async () => {
	const form = await get('/login', { 'X-Forwarded-Proto': 'https' });
	expect(form.status).toBe(200);
	// The sign-in form needs no session: only its CSRF cookie, scoped to /login.
	expect(sessionCookie(form)).toBeUndefined();
	const csrf = cookieNamed(form, 'lms.csrf');
	expect(csrf).toMatch(/;\s*Path=\/login/i);
	for (const cookie of [csrf, sessionCookie(await signIn({ 'X-Forwarded-Proto': 'https' }))]) {
		expect(cookie).toBeDefined();
		expect(cookie).toMatch(/;\s*Secure/i);
		expect(cookie).toMatch(/;\s*HttpOnly/i);
		expect(cookie).toMatch(/;\s*SameSite=Lax/i);
	}
});

test('over plain HTTP the cookies are not Secure (they would never come back), but still HttpOnly', async () => {
	const signedIn = await signIn({});
	expect(signedIn.status).toBe(303);
	for (const cookie of [cookieNamed(await get('/login'), 'lms.csrf'), sessionCookie(signedIn)]) {
		expect(cookie).toMatch(/;\s*HttpOnly/i);
		expect(cookie).not.toMatch(/;\s*Secure/i);
	}
});

test('pages carry a strict Content-Security-Policy and are never cached', async () => {
	const res = await get('/login');
	const csp = res.headers.get('content-security-policy') ?? '';
	expect(csp).toContain("default-src 'none'");
	expect(csp).toContain("script-src 'self'");
	expect(csp).toContain("style-src 'self'");
	expect(csp).toContain("frame-ancestors 'none'");
	expect(csp).toContain("form-action 'self'");
	expect(csp).not.toContain('unsafe-inline');
	expect(res.headers.get('cache-control')).toBe('no-store');
	expect(res.headers.get('content-type')).toMatch(/^text\/html/);
	// A document also gets the headers that only matter to one (the API's answers do without).
	expect(res.headers.get('referrer-policy')).toBe('same-origin');
	expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
	expect(res.headers.get('x-xss-protection')).toBe('0');
	const html = await res.text();
	// No inline script or style for the policy to have to allow.
	expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
	expect(html).not.toMatch(/<style|style="/);
});

test('the stylesheet and script are served locally, without creating a session', async () => {
	for (const [path, type] of [
		['/settings/assets/settings.css', /^text\/css/],
		['/settings/assets/settings.js', /javascript/],
		['/settings/assets/favicon.svg', /^image\/svg\+xml/],
	] as const) {
		const res = await get(path);
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toMatch(type);
		expect(sessionCookie(res)).toBeUndefined();
	}
});

test('the API and unknown settings paths get no session', async () => {
	const api = await get('/api/v1/users');
	expect(api.status).toBe(401);
	expect(sessionCookie(api)).toBeUndefined();

	const missing = await get('/settings/no-such-page');
	expect(missing.status).toBe(404);
	await expect(missing.text()).resolves.toContain('Page not found');
	expect(sessionCookie(missing)).toBeUndefined();
});

test('a sign-in form never sends the person off-site afterwards', async () => {
	for (const next of ['//evil.example/x', 'https://evil.example/', '/settings/../../evil', '/api/v1/users']) {
		const html = await (await get(`/login?next=${encodeURIComponent(next)}`)).text();
		expect(html).toContain('name="next" value="/settings"');
	}
	const html = await (await get('/login?next=%2Fsettings%2Fapi-keys')).text();
	expect(html).toContain('name="next" value="/settings/api-keys"');
});

test('a sign-in POST without its CSRF token is refused with a page that says why', async () => {
	const res = await fetch(`${server.baseUrl}/login`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
		body: 'email=a%40b.test&password=x',
		redirect: 'manual',
	});
	expect(res.status).toBe(403);
	expect(res.headers.get('content-type')).toMatch(/^text\/html/);
	expect(await res.text()).toContain('This form has expired');
});

test('GET /logout without a session leads to the sign-in page', async () => {
	const res = await get('/logout');
	expect(res.status).toBe(303);
	expect(res.headers.get('location')).toBe('/login');
});
