/**
 * Settings → Change password in Chromium, by keyboard only: a refused form comes back through a
 * redirect (Back and Reload resend nothing), then the change signs every other browser out.
 */
import type { Browser, Page } from 'playwright-core';

import { findOrganization } from '../../server/src/organizations/service';
import { createUser } from '../../server/src/users/service';
import { launchBrowser } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	browser = await launchBrowser();
	await createUser({ organization: await findOrganization('acme'), email: 'keys.only@acme.test', name: 'Keyboard Only', role: 'super_admin', password: 'first-password-1' });
}, 120_000);

afterAll(async () => {
	await browser?.close();
	await server?.stop();
});

async function signIn(password: string): Promise<Page> {
	const page = await (await browser.newContext({ baseURL: server.baseUrl })).newPage();
	await page.goto('/login');
	await page.getByLabel('Email').fill('keys.only@acme.test');
	await page.getByLabel('Password').fill(password);
	await Promise.all([page.waitForURL('**/settings'), page.keyboard.press('Enter')]);
	return page;
}

/** Tabs until `selector` has the focus (at most 30 presses). */
async function tabTo(page: Page, selector: string): Promise<void> {
	for (let i = 0; i < 30; i += 1) {
		if (await page.locator(selector).evaluate((element) => element === element.ownerDocument.activeElement)) return;
		await page.keyboard.press('Tab');
	}
	throw new Error(`${selector} never got the focus`);
}

test('change the password by keyboard; a refusal is a redirect, and the change signs the other browser out', async () => {
	const page = await signIn('first-password-1');
	const other = await signIn('first-password-1');

	await tabTo(page, '#password-link');
	await Promise.all([page.waitForURL('**/settings/password'), page.keyboard.press('Enter')]);
	await tabTo(page, '#current_password');
	await page.keyboard.type('not-my-password');
	await page.keyboard.press('Tab');
	await page.keyboard.type('second-password-2');
	await page.keyboard.press('Tab');
	await page.keyboard.type('second-password-2');
	await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
	await expect(page.locator('#form-error').textContent()).resolves.toContain('The current password is not right');

	// The refusal was a GET after a redirect: Reload asks for the form again, not to resend a POST.
	const reloaded = await page.reload();
	expect(reloaded!.request().method()).toBe('GET');
	expect(await page.locator('#form-error').count()).toBe(0);
	const back = await page.goBack();
	expect(back!.request().method()).toBe('GET');
	await page.goForward();

	await page.getByLabel('Current password').fill('first-password-1');
	await page.getByLabel('New password', { exact: true }).fill('second-password-2');
	await page.getByLabel('Repeat the new password').fill('second-password-2');
	await Promise.all([page.waitForURL('**/settings'), page.getByRole('button', { name: 'Change password' }).press('Enter')]);
	await expect(page.getByRole('status').textContent()).resolves.toContain('Password changed.');

	await other.reload();
	expect(new URL(other.url()).pathname).toBe('/login');
	await (await signIn('second-password-2')).context().close();
	await page.context().close();
	await other.context().close();
}, 90_000);
