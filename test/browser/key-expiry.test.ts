/**
 * Issue 30: an API key's optional expiry date on Settings → API Keys, in a real Chromium with
 * axe-core at a desktop width and on a 390 px phone: chosen in the "New API key" form, shown in
 * the keys list, announced above everything 7 days before (and in the audit log, as the server),
 * and once past, the key reads Expired, cannot be rotated, and the API refuses it.
 */
import { readFileSync } from 'node:fs';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { ApiKey } from '../../server/src/api-keys/model';
import { artifactPath, launchBrowser } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const DAY = 86_400_000;

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

/** A UTC calendar date `days` from today, as a date input takes it. */
const dateIn = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);

async function submit(button: string): Promise<void> {
	await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: button }).click()]);
}

async function axeViolations(): Promise<Array<{ id: string; nodes: number; help: string }>> {
	await page.addScriptTag({ content: AXE_SOURCE });
	return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
		.then((result) => result.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.length })))`);
}

/** Both widths: no axe violation and nothing wider than the screen, with a screenshot of each. */
async function checkAtBothWidths(name: string): Promise<void> {
	for (const [width, height] of [
		[1280, 900],
		[390, 844],
	]) {
		await page.setViewportSize({ width, height });
		await page.reload();
		expect(await axeViolations()).toEqual([]);
		expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
		await page.screenshot({ path: artifactPath(`key-expiry-${name}-${width}`), fullPage: true });
	}
	await page.setViewportSize({ width: 1280, height: 900 });
}

const rowOf = (label: string) => page.locator('#keys tbody tr').filter({ has: page.locator('.key-label', { hasText: label }) });

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	browser = await launchBrowser();
	// axe is injected as a script: the pages' CSP forbids that, so this context bypasses it.
	context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1280, height: 900 }, bypassCSP: true });
	page = await context.newPage();
	const admin = server.demo!.accounts.find((a) => a.organization === 'acme' && a.role === 'super_admin')!;
	await page.goto('/login');
	await page.getByLabel('Email').fill(admin.email);
	await page.getByLabel('Password').fill(admin.password);
	await submit('Sign in');
}, 120_000);

afterAll(async () => {
	await context?.close();
	await browser?.close();
	await server?.stop();
});

test('a date more than 10 years away is refused on the form, which keeps what was typed', async () => {
	await page.goto('/settings/api-keys');
	await page.getByLabel('Label').fill('Too far');
	await page.locator('input[name="scopes"][value="read:users"]').check();
	await page.getByLabel(/Expires on/).fill('2999-01-01');
	await submit('Create key');
	await expect(page.locator('#form-error').textContent()).resolves.toMatch(/^The expiry 2999-01-01 is more than 10 years away\. Give a number of days/);
	await expect(page.getByLabel(/Expires on/).inputValue()).resolves.toBe('2999-01-01');
	await expect(page.getByLabel('Label').inputValue()).resolves.toBe('Too far');
	expect(await ApiKey.count({ where: { label: 'Too far' } })).toBe(0);
});

test('a key created to expire in 5 days: listed with its date, announced on the page and in the audit log', async () => {
	await page.goto('/settings/api-keys');
	await page.getByLabel('Label').fill('Contractor sync');
	await page.locator('input[name="scopes"][value="read:users"]').check();
	await page.getByLabel(/Expires on/).fill(dateIn(5));
	await submit('Create key');
	const secret = (await page.locator('#new-key-secret').textContent())!.trim();

	await page.goto('/settings/api-keys');
	const expiresAt = `${dateIn(5)}T00:00:00.000Z`;
	await expect(rowOf('Contractor sync').locator('.key-expires time').getAttribute('datetime')).resolves.toBe(expiresAt);
	const reminder = page.locator('#expiry-reminders');
	await expect(reminder.locator('li', { hasText: 'Contractor sync' }).textContent()).resolves.toMatch(/Contractor sync .* expires on \d+ \w+ \d{4}, 00:00 UTC\./);
	await expect(reminder.textContent()).resolves.toContain('create a second key, move each integration to it, then revoke the old one');
	// The page looked for owed entries before showing the log: the reminder is there already, once.
	const reminderEntries = page.locator('#audit-log tbody tr', { hasText: 'Expires within 7 days' }).filter({ hasText: 'Contractor sync' });
	await expect(reminderEntries.count()).resolves.toBe(1);
	await expect(reminderEntries.textContent()).resolves.toContain('The server');
	await checkAtBothWidths('reminder');
	await expect(reminderEntries.count()).resolves.toBe(1);

	// The rotation confirmation says the new key keeps the date, and how to switch without an outage.
	await rowOf('Contractor sync').getByRole('link', { name: 'Rotate' }).click();
	await expect(page.locator('.facts').textContent()).resolves.toContain('the new key keeps this date');
	await expect(page.locator('#zero-downtime').textContent()).resolves.toMatch(/create a second key.*then revoke this one/);

	// The date passes.
	const { id } = (await ApiKey.findOne({ where: { label: 'Contractor sync' } }))!;
	await ApiKey.update({ expiresAt: new Date(Date.now() - 1000) }, { where: { id }, silent: true });
	await page.goto('/settings/api-keys');
	await expect(rowOf('Contractor sync').locator('.status').textContent()).resolves.toBe('Expired');
	await expect(rowOf('Contractor sync').getByRole('link', { name: 'Rotate' }).count()).resolves.toBe(0);
	await expect(rowOf('Contractor sync').getByRole('link', { name: 'Revoke' }).count()).resolves.toBe(1);
	await expect(page.locator('#expiry-reminders li', { hasText: 'Contractor sync' }).textContent()).resolves.toMatch(/expired on/);
	await expect(page.locator('#audit-log tbody tr', { hasText: 'Expired' }).filter({ hasText: 'Contractor sync' }).count()).resolves.toBe(1);
	await checkAtBothWidths('expired');

	const refused = await waitUntil(async () => {
		const res = await fetch(`${server.baseUrl}/api/v1/key`, { headers: { Authorization: `Bearer ${secret}` } });
		return res.status === 401 ? ((await res.json()) as { code: string }) : undefined;
	});
	expect(refused.code).toBe('api_key_expired');
});
