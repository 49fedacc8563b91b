/**
 * Every Settings form in Chromium (issue 42): a refused form comes back through a redirect, so
 * Reload and Back fetch pages with GET and never offer to resend a POST; and a form sent after the
 * session ended keeps what was typed through signing in again (never a password).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';

import { ApiKey } from '../../server/src/api-keys/model';
import { WebhookEndpoint } from '../../server/src/webhooks/model';
import { findOrganization } from '../../server/src/organizations/service';
import { createUser } from '../../server/src/users/service';
import { launchBrowser } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

const EMAIL = 'forms@acme.test';
const PASSWORD = 'forms-password-1';
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	browser = await launchBrowser();
	await createUser({ organization: await findOrganization('acme'), email: EMAIL, name: 'Form Filler', role: 'super_admin', password: PASSWORD });
}, 120_000);

afterAll(async () => {
	await browser?.close();
	await server?.stop();
});

async function signIn(page: Page): Promise<void> {
	await page.getByLabel('Email').fill(EMAIL);
	await page.getByLabel('Password').fill(PASSWORD);
	await Promise.all([page.waitForURL((url) => url.pathname !== '/login'), page.getByRole('button', { name: 'Sign in' }).click()]);
}

async function signedIn(): Promise<{ context: BrowserContext; page: Page }> {
	const context = await browser.newContext({ baseURL: server.baseUrl });
	const page = await context.newPage();
	await page.goto('/login');
	await signIn(page);
	return { context, page };
}

/** Submits with `button` and waits for the page the browser lands on. */
async function send(page: Page, button: string): Promise<void> {
	await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: button }).click()]);
}

/** The refusal was a GET after a redirect: Reload and Back never resend the POST, and the error is said once. */
async function expectNoResubmission(page: Page, path: string): Promise<void> {
	expect(new URL(page.url()).pathname).toBe(path);
	const reloaded = await page.reload();
	expect(reloaded!.request().method()).toBe('GET');
	expect(await page.locator('#form-error').count()).toBe(0);
	const back = await page.goBack();
	expect(back!.request().method()).toBe('GET');
	await page.goForward();
}

test('refused API key and webhook forms come back by redirect, with what was typed', async () => {
	const { context, page } = await signedIn();
	const keysBefore = await ApiKey.count();
	await page.goto('/settings/api-keys');
	await page.getByLabel('Label').fill('Bell\u0007key');
	await page.locator('input[name="scopes"][value="read:users"]').check();
	await send(page, 'Create key');
	await expect(page.locator('#form-error').textContent()).resolves.toContain('The label contains control characters');
	await expect(page.locator('input[name="scopes"][value="read:users"]').isChecked()).resolves.toBe(true);
	await expectNoResubmission(page, '/settings/api-keys');
	expect(await ApiKey.count()).toBe(keysBefore);

	const endpointsBefore = await WebhookEndpoint.count();
	await page.goto('/settings/webhooks');
	await page.getByLabel('URL').fill('http://169.254.169.254/latest/meta-data');
	await page.getByRole('checkbox', { name: 'Every event type' }).check();
	await send(page, 'Add endpoint');
	await expect(page.locator('#form-error').textContent()).resolves.toMatch(/not a public address/);
	await expect(page.getByLabel('URL').inputValue()).resolves.toBe('http://169.254.169.254/latest/meta-data');
	await expectNoResubmission(page, '/settings/webhooks');
	expect(await WebhookEndpoint.count()).toBe(endpointsBefore);

	// The edit form: test/browser/webhooks.test.ts (its refused URL, then Reload).
	await context.close();
}, 90_000);

test('a form sent after the session ended comes back after sign-in with what was typed, never a password', async () => {
	const { context, page } = await signedIn();
	await page.goto('/settings/webhooks');
	const url = 'https://example.com/typed-before-the-session-ended';
	await page.getByLabel('URL').fill(url);
	await page.getByRole('checkbox', { name: 'Every event type' }).check();
	await page.getByLabel('Description').fill('Kept across sign-in');
	// The session ends while the form is open (its cookie gone, as after the 8 hours).
	await context.clearCookies({ name: 'lms.sid' });
	const before = await WebhookEndpoint.count();
	await send(page, 'Add endpoint');
	expect(new URL(page.url()).pathname).toBe('/login');
	await expect(page.locator('#session-ended').textContent()).resolves.toContain('the form comes back with what you typed');
	expect(await WebhookEndpoint.count()).toBe(before);
	await signIn(page);
	expect(new URL(page.url()).pathname).toBe('/settings/webhooks');
	await expect(page.locator('#form-error').textContent()).resolves.toContain('Your session had ended');
	await expect(page.getByLabel('URL').inputValue()).resolves.toBe(url);
	await expect(page.getByLabel('Description').inputValue()).resolves.toBe('Kept across sign-in');
	await expect(page.getByRole('checkbox', { name: 'Every event type' }).isChecked()).resolves.toBe(true);
	// Shown once: the draft is used up.
	await page.reload();
	await expect(page.getByLabel('URL').inputValue()).resolves.toBe('');

	// The password form: nothing typed is kept, and the page says what to redo.
	await page.goto('/settings/password');
	await page.getByLabel('Current password').fill(PASSWORD);
	await page.getByLabel('New password', { exact: true }).fill('never-kept-password-2');
	await page.getByLabel('Repeat the new password').fill('never-kept-password-2');
	await context.clearCookies({ name: 'lms.sid' });
	await send(page, 'Change password');
	expect(new URL(page.url()).pathname).toBe('/login');
	const draft = (await context.cookies()).find((c) => c.name === 'lms.draft');
	expect(Buffer.from(draft!.value, 'base64url').toString()).not.toContain('never-kept');
	await signIn(page);
	expect(new URL(page.url()).pathname).toBe('/settings/password');
	await expect(page.locator('#form-error').textContent()).resolves.toContain('send it again');
	await expect(page.getByLabel('New password', { exact: true }).inputValue()).resolves.toBe('');

	// An action (revoke) rather than a form: back to its page, told to do it again.
	const { id } = await server.createKey('acme', ['read:users'], 'revoke after expiry');
	await page.goto(`/settings/api-keys/${id}/revoke`);
	await context.clearCookies({ name: 'lms.sid' });
	await send(page, 'Revoke key');
	await expect(page.locator('#session-ended').textContent()).resolves.toContain('do it again');
	await signIn(page);
	expect(new URL(page.url()).pathname).toBe('/settings/api-keys');
	expect((await ApiKey.findByPk(id))!.status).toBe('active');
	await context.close();
}, 90_000);

test('a refused sign-in comes back by redirect: the reason once, the e-mail kept, never the password, and where it was going', async () => {
	const context = await browser.newContext({ baseURL: server.baseUrl });
	const page = await context.newPage();
	await page.goto('/login?next=/settings/webhooks');
	await page.getByLabel('Email').fill(EMAIL);
	await page.getByLabel('Password').fill('not-the-password');
	const [answer] = await Promise.all([
		page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/login'),
		send(page, 'Sign in'),
	]);
	expect(answer.status()).toBe(303);
	expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe('/login?next=%2Fsettings%2Fwebhooks');
	await expect(page.locator('#login-error').textContent()).resolves.toBe('Email or password is incorrect.');
	await expect(page.getByLabel('Email').inputValue()).resolves.toBe(EMAIL);
	await expect(page.getByLabel('Password').inputValue()).resolves.toBe('');
	const kept = (await context.cookies()).find((c) => c.name === 'lms.sign-in-refused');
	expect(kept).toBeUndefined();
	// Reload and Back are GETs; the reason was said once.
	const reloaded = await page.reload();
	expect(reloaded!.request().method()).toBe('GET');
	expect(await page.locator('#login-error').count()).toBe(0);
	expect((await page.goBack())!.request().method()).toBe('GET');
	await page.goForward();
	// The right password from here goes where the first attempt was going.
	await page.getByLabel('Email').fill(EMAIL);
	await signIn(page);
	expect(new URL(page.url()).pathname).toBe('/settings/webhooks');
	await context.close();
}, 90_000);
