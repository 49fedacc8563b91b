/**
 * Settings → API Keys in a real browser (Debian's Chromium through playwright-core), against
 * the real server: what a Super Admin does on the page must immediately work, or stop
 * working, against the API.
 */
import { join } from 'node:path';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { artifactPath, launchBrowser } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

const KEY_SHAPE = /^lms_[0-9A-Za-z]{38}$/;
const GENERIC_SIGN_IN_ERROR = 'Email or password is incorrect.';

let server: TestServer;
let browser: Browser;

function account(organization: string, role: string): { email: string; password: string } {
	const found = server.demo!.accounts.find((a) => a.organization === organization && a.role === role);
	if (!found) throw new Error(`no demo ${role} in ${organization}`);
	return found;
}

async function callUsers(key: string): Promise<{ status: number; code?: string }> {
	const res = await fetch(`${server.baseUrl}/api/v1/users?per_page=1`, { headers: { Authorization: `Bearer ${key}` } });
	const body = (await res.json()) as { code?: string };
	return { status: res.status, code: body.code };
}

async function newContext(): Promise<BrowserContext> {
	const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1280, height: 900 } });
	await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
	return context;
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
	await page.goto('/login');
	await page.getByLabel('Email').fill(email);
	await page.getByLabel('Password').fill(password);
	await submit(page, 'Sign in');
}

/** Clicks a form's button and waits for the page that answers (after any redirect) to load. */
async function submit(page: Page, button: string): Promise<void> {
	await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: button }).click()]);
}

async function createKeyOnPage(page: Page, label: string, scopes: string[]): Promise<void> {
	await page.goto('/settings/api-keys');
	await page.getByLabel('Label').fill(label);
	for (const scope of scopes) await page.locator(`input[name="scopes"][value="${scope}"]`).check();
	await submit(page, 'Create key');
}

/** The key as a person gets it: through the page's Copy button, from the clipboard. */
async function copyShownKey(page: Page): Promise<string> {
	await page.getByRole('button', { name: 'Copy' }).click();
	await page.getByText('Copied', { exact: true }).waitFor();
	const copied = await page.evaluate<string>('navigator.clipboard.readText()');
	expect(copied).toBe((await page.locator('#new-key-secret').textContent())?.trim());
	return copied;
}

function rowOf(page: Page, label: string) {
	return page.locator('#keys tbody tr').filter({ has: page.locator('.key-label', { hasText: label }) });
}

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
	await browser?.close();
	await server?.stop();
});

describe('signing in', () => {
	test('a wrong password and an unknown email get the same generic error', async () => {
		const context = await newContext();
		const page = await context.newPage();
		const { email } = account('acme', 'super_admin');

		await signIn(page, email, 'not-the-password');
		expect(new URL(page.url()).pathname).toBe('/login');
		await expect(page.locator('#login-error').textContent()).resolves.toBe(GENERIC_SIGN_IN_ERROR);
		// The email is kept so the person only retypes the password.
		await expect(page.getByLabel('Email').inputValue()).resolves.toBe(email);

		await signIn(page, 'nobody@acme.test', 'whatever-it-is');
		await expect(page.locator('#login-error').textContent()).resolves.toBe(GENERIC_SIGN_IN_ERROR);
		await page.screenshot({ path: artifactPath('settings-login-error') });
		await context.close();
	});

	test('no session before sign-in; at sign-in a new HttpOnly, SameSite session replaces any planted one', async () => {
		const context = await newContext();
		const page = await context.newPage();
		await page.goto('/login');
		expect((await context.cookies()).find((c) => c.name === 'lms.sid')).toBeUndefined();
		// A session id planted by someone else (session fixation) is worth nothing after sign-in.
		await context.addCookies([{ name: 'lms.sid', value: 's%3Aplanted.signature', url: server.baseUrl }]);

		const { email, password } = account('acme', 'super_admin');
		await signIn(page, email, password);
		expect(new URL(page.url()).pathname).toBe('/settings');
		const after = (await context.cookies()).find((c) => c.name === 'lms.sid');
		expect(after).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
		// Served over plain HTTP here, so not Secure (it is behind HTTPS); never a fixed session id.
		expect(after!.value).not.toBe('s%3Aplanted.signature');
		await context.close();
	});

	test('without a trusted proxy, a client cannot claim HTTPS to change the cookie', async () => {
		const res = await fetch(`${server.baseUrl}/login`, { headers: { 'X-Forwarded-Proto': 'https' } });
		const cookie = res.headers.getSetCookie().find((c) => c.startsWith('lms.csrf='));
		expect(cookie).toMatch(/;\s*HttpOnly/i);
		expect(cookie).not.toMatch(/;\s*Secure/i);
	});

	test('an anonymous visitor is sent to sign in, and back to the page afterwards', async () => {
		const context = await newContext();
		const page = await context.newPage();
		await page.goto('/settings/api-keys');
		expect(new URL(page.url()).pathname).toBe('/login');
		const { email, password } = account('acme', 'super_admin');
		await page.getByLabel('Email').fill(email);
		await page.getByLabel('Password').fill(password);
		await page.getByRole('button', { name: 'Sign in' }).click();
		await page.waitForURL('**/settings/api-keys');
		await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('API keys');
		await context.close();
	});
});

describe('a Super Admin of an Enterprise organization manages keys', () => {
	let context: BrowserContext;
	let page: Page;
	let firstKey: string;
	let rotatedKey: string;

	beforeAll(async () => {
		context = await newContext();
		page = await context.newPage();
		const { email, password } = account('acme', 'super_admin');
		await signIn(page, email, password);
	});

	afterAll(async () => {
		await context.close();
	});

	test('the settings page links to API keys', async () => {
		await page.goto('/settings');
		await page.getByRole('link', { name: 'Manage API keys' }).click();
		await page.waitForURL('**/settings/api-keys');
		const response = await page.reload();
		const csp = response!.headers()['content-security-policy'];
		expect(csp).toContain("default-src 'none'");
		expect(csp).toContain("script-src 'self'");
		expect(csp).not.toContain('unsafe-inline');
		expect(response!.headers()['cache-control']).toBe('no-store');
	});

	test('creates a key, copies it from the page, and the key works at once', async () => {
		await createKeyOnPage(page, 'HR sync', ['read:users', 'read:enrollments']);
		expect(new URL(page.url()).pathname).toBe('/settings/api-keys/new-key');
		await expect(page.getByRole('alert').first().textContent()).resolves.toContain('shown only once');

		firstKey = await copyShownKey(page);
		expect(firstKey).toMatch(KEY_SHAPE);
		await page.screenshot({ path: artifactPath('settings-new-key'), fullPage: true });

		await expect(callUsers(firstKey)).resolves.toEqual({ status: 200, code: undefined });
	});

	test('the full key is never shown again: not after a reload, not after Back', async () => {
		// Leave the one-time page, then come back to it with the Back button.
		await page.getByRole('link', { name: 'I have stored the key' }).click();
		await page.waitForURL('**/settings/api-keys');
		await expect(page.content()).resolves.not.toContain(firstKey);
		await expect(rowOf(page, 'HR sync').locator('.masked').textContent()).resolves.toBe(
			`${firstKey.slice(0, 8)}…${firstKey.slice(-4)}`,
		);

		// Back lands on the keys list: the browser asks again (no-store), or the page restored
		// from the back/forward cache reloads itself, and the server no longer has the key.
		await page.goBack();
		await page.waitForURL('**/settings/api-keys');
		await expect(page.content()).resolves.not.toContain(firstKey);

		await page.goto('/settings/api-keys/new-key');
		expect(new URL(page.url()).pathname).toBe('/settings/api-keys');
		await page.reload();
		await expect(page.content()).resolves.not.toContain(firstKey);
	});

	test('rotates the key behind a confirmation: the old key gets api_key_rotated, the new one works', async () => {
		await page.goto('/settings/api-keys');
		await rowOf(page, 'HR sync').getByRole('link', { name: 'Rotate' }).click();
		await page.waitForURL('**/rotate');
		await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Rotate this key?');
		// Nothing happens until the confirmation is submitted.
		await expect(callUsers(firstKey)).resolves.toMatchObject({ status: 200 });

		await page.getByRole('button', { name: 'Rotate key' }).click();
		await page.waitForURL('**/settings/api-keys/new-key');
		rotatedKey = await copyShownKey(page);
		expect(rotatedKey).toMatch(KEY_SHAPE);
		expect(rotatedKey).not.toBe(firstKey);

		await expect(callUsers(firstKey)).resolves.toEqual({ status: 401, code: 'api_key_rotated' });
		await expect(callUsers(rotatedKey)).resolves.toEqual({ status: 200, code: undefined });

		await page.reload();
		await expect(page.content()).resolves.not.toContain(rotatedKey);
	});

	test('revokes the key behind a confirmation: it gets api_key_revoked at once', async () => {
		await page.goto('/settings/api-keys');
		const active = page.locator('#keys tbody tr[data-status="active"]').filter({ hasText: 'HR sync' });
		await active.getByRole('link', { name: 'Revoke' }).click();
		await page.waitForURL('**/revoke');
		await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Revoke this key?');
		await page.getByRole('button', { name: 'Revoke key' }).click();
		await page.waitForURL('**/settings/api-keys');
		await expect(page.getByRole('status').first().textContent()).resolves.toContain('Revoked HR sync');

		await expect(callUsers(rotatedKey)).resolves.toEqual({ status: 401, code: 'api_key_revoked' });
		const statuses = await page.locator('#keys tbody tr').filter({ hasText: 'HR sync' }).locator('.status').allTextContents();
		expect(statuses.sort()).toEqual(['Revoked', 'Rotated']);
	});

	test('the audit log says who did what to which key, when, and from where', async () => {
		const rows = page.locator('#audit-log tbody tr');
		const texts = await rows.allTextContents();
		const { email } = account('acme', 'super_admin');
		const hrSync = texts.filter((t) => t.includes('HR sync'));
		expect(hrSync).toHaveLength(3);
		for (const [row, action] of hrSync.map((t, i) => [t, ['Revoked', 'Rotated', 'Created'][i]])) {
			expect(row).toContain(action);
			expect(row).toContain(email);
			expect(row).toContain('127.0.0.1');
			expect(row).toMatch(/UTC/);
		}
	});

	test('a label with markup is shown as text and runs nothing', async () => {
		const dialogs: string[] = [];
		page.on('dialog', (dialog) => {
			dialogs.push(dialog.message());
			void dialog.dismiss();
		});
		const label = '<script>alert(1)</script>';
		await createKeyOnPage(page, label, ['read:courses']);
		await expect(page.locator('.facts dd').first().textContent()).resolves.toBe(label);
		await page.goto('/settings/api-keys');
		await expect(rowOf(page, label).locator('.key-label').textContent()).resolves.toBe(label);
		await expect(page.locator('#keys script').count()).resolves.toBe(0);
		await page.screenshot({ path: artifactPath('settings-api-keys'), fullPage: true });
		expect(dialogs).toEqual([]);
	});

	test('the key rules are the service\'s: no scope means no key, and the form says why', async () => {
		await createKeyOnPage(page, 'No scopes', []);
		expect(new URL(page.url()).pathname).toBe('/settings/api-keys');
		await expect(page.locator('#form-error').textContent()).resolves.toContain('Select at least one scope');
		await expect(page.getByLabel('Label').inputValue()).resolves.toBe('No scopes');
		await expect(rowOf(page, 'No scopes').count()).resolves.toBe(0);
	});

	test('a label with control characters is refused, and the form says why', async () => {
		// Typed into the page (a pasted escape sequence), then posted as a script would (a NUL byte).
		await createKeyOnPage(page, 'Tab\there', ['read:users']);
		expect(new URL(page.url()).pathname).toBe('/settings/api-keys');
		await expect(page.locator('#form-error').textContent()).resolves.toContain('The label contains control characters');
		await expect(rowOf(page, 'Tab').count()).resolves.toBe(0);

		const token = await page.locator('input[name="_csrf"]').first().inputValue();
		for (const label of ['evil\u001b[2J', 'nul\u0000byte', 'bell\u0007']) {
			const post = await context.request.post('/settings/api-keys', {
				form: { label, scopes: 'read:users', _csrf: token },
				maxRedirects: 0,
			});
			expect(post.status()).toBe(303);
			expect(await (await context.request.get('/settings/api-keys')).text()).toContain('The label contains control characters');
		}
		await page.goto('/settings/api-keys');
		for (const prefix of ['evil', 'nul', 'bell']) await expect(rowOf(page, prefix).count()).resolves.toBe(0);
	});

	test('a form POST without the CSRF token, or with a wrong one, is refused', async () => {
		await page.goto('/settings/api-keys');
		const keysBefore = await page.locator('#keys tbody tr').count();
		const withoutToken = await context.request.post('/settings/api-keys', {
			form: { label: 'forged', scopes: 'read:users' },
			maxRedirects: 0,
		});
		expect(withoutToken.status()).toBe(403);
		expect(await withoutToken.text()).toContain('This form has expired');
		const wrongToken = await context.request.post('/settings/api-keys', {
			form: { label: 'forged', scopes: 'read:users', _csrf: 'x'.repeat(256) },
			maxRedirects: 0,
		});
		expect(wrongToken.status()).toBe(403);

		await page.reload();
		await expect(page.locator('#keys tbody tr').count()).resolves.toBe(keysBefore);
		await expect(rowOf(page, 'forged').count()).resolves.toBe(0);
	});

	test('signing out ends the session on the server', async () => {
		const cookie = (await context.cookies()).find((c) => c.name === 'lms.sid')!;
		await page.goto('/settings');
		await page.getByRole('button', { name: 'Sign out' }).click();
		await page.waitForURL('**/login');
		// Replaying the old cookie gets nowhere: the session row is gone.
		const replay = await fetch(`${server.baseUrl}/settings`, {
			headers: { Cookie: `lms.sid=${cookie.value}` },
			redirect: 'manual',
		});
		expect(replay.status).toBe(303);
		expect(replay.headers.get('location')).toBe('/login');
	});
});

describe('without JavaScript', () => {
	test('a key can be created and read; only the Copy button is missing', async () => {
		const context = await browser.newContext({ baseURL: server.baseUrl, javaScriptEnabled: false });
		const page = await context.newPage();
		const { email, password } = account('acme', 'super_admin');
		await signIn(page, email, password);
		await createKeyOnPage(page, 'No-JS key', ['read:courses']);
		const secret = (await page.locator('#new-key-secret').textContent())!.trim();
		expect(secret).toMatch(KEY_SHAPE);
		await expect(page.getByRole('button', { name: 'Copy' }).isVisible()).resolves.toBe(false);
		await expect(callUsers(secret)).resolves.toEqual({ status: 403, code: 'insufficient_scope' });

		await page.getByRole('link', { name: 'I have stored the key' }).click();
		await page.waitForURL('**/settings/api-keys');
		await page.goBack();
		await page.waitForURL('**/settings/api-keys');
		await expect(page.content()).resolves.not.toContain(secret);
		await page.locator('#keys tbody tr', { hasText: 'No-JS key' }).getByRole('link', { name: 'Revoke' }).click();
		await page.waitForURL('**/revoke');
		await page.getByRole('button', { name: 'Revoke key' }).click();
		await page.waitForURL('**/settings/api-keys');
		await expect(callUsers(secret)).resolves.toEqual({ status: 401, code: 'api_key_revoked' });
		await context.close();
	});
});

describe('the page as the README shows it', () => {
	/**
	 * A realistic keys page (globex, untouched by the tests above) for docs/images/api-keys.png.
	 * Always saved under artifacts/; copied into docs/ when UPDATE_DOCS_SCREENSHOT=1.
	 */
	test('a Super Admin\'s keys page with a few keys in every state', async () => {
		const context = await newContext();
		const page = await context.newPage();
		const { email, password } = account('globex', 'super_admin');
		await signIn(page, email, password);

		await createKeyOnPage(page, 'Old CSV import', ['read:users']);
		await page.goto('/settings/api-keys');
		await rowOf(page, 'Old CSV import').getByRole('link', { name: 'Revoke' }).click();
		await page.waitForURL('**/revoke');
		await submit(page, 'Revoke key');

		await createKeyOnPage(page, 'HR sync (n8n)', ['read:users', 'read:enrollments', 'write:enrollments']);
		await page.goto('/settings/api-keys');
		await rowOf(page, 'HR sync (n8n)').getByRole('link', { name: 'Rotate' }).click();
		await page.waitForURL('**/rotate');
		await submit(page, 'Rotate key');
		const hrKey = (await page.locator('#new-key-secret').textContent())!.trim();
		await expect(callUsers(hrKey)).resolves.toMatchObject({ status: 200 });

		await createKeyOnPage(page, 'Reporting dashboard', ['read:courses', 'read:enrollments']);
		await page.goto('/settings/api-keys');
		await expect(page.locator('#keys tbody tr').count()).resolves.toBe(4);

		const path = artifactPath('docs-api-keys');
		await page.screenshot({ path, fullPage: true });
		if (process.env.UPDATE_DOCS_SCREENSHOT === '1') {
			await page.screenshot({ path: join(__dirname, '..', '..', 'docs', 'images', 'api-keys.png'), fullPage: true });
		}
		await context.close();
	});
});

describe('the way in', () => {
	test('the server address in a browser leads to sign-in, then to the settings with what n8n needs', async () => {
		const context = await newContext();
		const page = await context.newPage();
		await page.goto('/');
		expect(new URL(page.url()).pathname).toBe('/login');
		const { email, password } = account('acme', 'super_admin');
		await signIn(page, email, password);
		await page.goto('/');
		expect(new URL(page.url()).pathname).toBe('/settings');
		await expect(page.locator('#api-base-url').textContent()).resolves.toBe(server.baseUrl);
		const openapi = await page.locator('#openapi-link').getAttribute('href');
		expect((await context.request.get(openapi!)).status()).toBe(200);
		await expect(page.locator('#docs-link').getAttribute('href')).resolves.toMatch(/^https:\/\//);

		// An identity provider (SPEC §21): the SCIM base URL, and a key preset for it that works there.
		const scimBase = (await page.locator('#scim-base-url').textContent())!;
		expect(scimBase).toBe(`${server.baseUrl}/scim/v2`);
		await page.locator('#scim-key-link').click();
		await page.waitForURL('**/settings/api-keys?preset=provisioning*');
		await expect(page.getByLabel('Label').inputValue()).resolves.toBe('Identity provider (SCIM)');
		const checked = await page.locator('input[name="scopes"]:checked').evaluateAll((boxes) => boxes.map((box) => box.getAttribute('value')));
		expect(checked).toEqual(['read:users', 'write:users']);
		await submit(page, 'Create key');
		const scimKey = (await page.locator('#new-key-secret').textContent())!.trim();
		const users = await fetch(`${scimBase}/Users?count=1`, { headers: { authorization: `Bearer ${scimKey}` } });
		expect(users.status).toBe(200);
		expect(((await users.json()) as { schemas: string[] }).schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:ListResponse']);
		await context.close();
	});

	test('an Admin is told which Super Admins to ask; a Business plan notice says who changes the plan', async () => {
		const context = await newContext();
		const page = await context.newPage();
		await signIn(page, account('acme', 'admin').email, account('acme', 'admin').password);
		const ask = await page.locator('#ask-super-admin').textContent();
		expect(ask).toContain(account('acme', 'super_admin').email);
		await context.clearCookies();
		await signIn(page, account('initech', 'super_admin').email, account('initech', 'super_admin').password);
		await expect(page.locator('#enterprise-notice').textContent()).resolves.toContain('lms-server orgs update initech --plan enterprise');
		await context.close();
	});
});

describe('everyone else', () => {
	test('an Admin sees no link to API keys, and the page answers 404', async () => {
		const context = await newContext();
		const page = await context.newPage();
		const { email, password } = account('acme', 'admin');
		await signIn(page, email, password);
		expect(new URL(page.url()).pathname).toBe('/settings');
		await expect(page.getByRole('link', { name: /API keys/i }).count()).resolves.toBe(0);
		await expect(page.content()).resolves.not.toContain('/settings/api-keys');
		await page.screenshot({ path: artifactPath('settings-admin') });

		const response = await page.goto('/settings/api-keys');
		expect(response!.status()).toBe(404);
		await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Page not found');

		// Even with a valid CSRF token, the Admin cannot create a key.
		await page.goto('/settings');
		const token = await page.locator('input[name="_csrf"]').first().inputValue();
		const post = await context.request.post('/settings/api-keys', {
			form: { label: 'admin key', scopes: 'read:users', _csrf: token },
			maxRedirects: 0,
		});
		expect(post.status()).toBe(404);
		await context.close();
	});

	test('a Super Admin on the Business plan is told the API needs Enterprise and cannot create a key', async () => {
		const context = await newContext();
		const page = await context.newPage();
		const { email, password } = account('initech', 'super_admin');
		await signIn(page, email, password);
		await expect(page.locator('#enterprise-notice').textContent()).resolves.toContain('Enterprise plan');
		await expect(page.getByRole('link', { name: 'Manage API keys' }).count()).resolves.toBe(0);

		const response = await page.goto('/settings/api-keys');
		expect(response!.status()).toBe(200);
		await expect(page.locator('#enterprise-notice').textContent()).resolves.toContain('Business plan');
		await expect(page.locator('#new-key-form').count()).resolves.toBe(0);
		await page.screenshot({ path: artifactPath('settings-api-keys-business'), fullPage: true });

		const token = await page.locator('input[name="_csrf"]').first().inputValue();
		const post = await context.request.post('/settings/api-keys', {
			form: { label: 'sneaky', scopes: 'read:users', _csrf: token },
			maxRedirects: 0,
		});
		// Refused, then back to the page by redirect (post/redirect/get), which says why.
		expect(post.status()).toBe(303);
		expect(await (await context.request.get('/settings/api-keys')).text()).toContain('Enterprise plan');
		await page.reload();
		await expect(page.locator('#keys').count()).resolves.toBe(0);
		await context.close();
	});
});
