/**
 * Issue 30: an API key's optional expiry date on Settings → API Keys, in a real Chromium with
 * axe-core at a desktop width and on a 390 px phone: chosen in the "New API key" form, shown in
 * the keys list, announced above everything 7 days before (and in the audit log, as the server),
 * and once past, the key reads Expired, cannot be rotated, and the API refuses it. And the old key's
 * end after a rotation (SPEC §22, `expire_old_after`): chosen on the confirmation page, said on the
 * new key's page and in the keys list, the old key working until then unless revoked.
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

/** GET /api/v1/key with `secret`: its status and problem code. */
async function keyCall(secret: string): Promise<{ status: number; code?: string }> {
	const res = await fetch(`${server.baseUrl}/api/v1/key`, { headers: { Authorization: `Bearer ${secret}` } });
	return { status: res.status, code: res.status === 200 ? undefined : ((await res.json()) as { code: string }).code };
}

/** axe at both widths on the page as it is, without reloading it (a one-time page cannot be reloaded). */
async function checkInPlace(name: string): Promise<void> {
	for (const [width, height] of [
		[1280, 900],
		[390, 844],
	]) {
		await page.setViewportSize({ width, height });
		expect(await axeViolations()).toEqual([]);
		expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);
		await page.screenshot({ path: artifactPath(`key-expiry-${name}-${width}`), fullPage: true });
	}
	await page.setViewportSize({ width: 1280, height: 900 });
}

test('a rotation that keeps the old key working for 36 hours (any whole hour of 0–168): chosen on the confirmation, said on the new key and in the list; revoke still stops it', async () => {
	const old = await server.createKey('acme', ['read:users'], 'Payroll sync');
	await page.goto('/settings/api-keys');
	await rowOf('Payroll sync').getByRole('link', { name: 'Rotate' }).click();
	await page.waitForURL('**/rotate');
	// 0 (stop it now) unless chosen.
	await expect(page.getByLabel('Keep the old key working for').inputValue()).resolves.toBe('0');
	await expect(page.locator('#zero-downtime').textContent()).resolves.toContain('keep the old key working long enough');
	await checkAtBothWidths('rotate-grace');
	// Any whole hour of 0–168, as the CLI and the rule take it.
	await page.getByLabel('Keep the old key working for').fill('36');
	const before = Date.now();
	await submit('Rotate key');
	expect(new URL(page.url()).pathname).toBe('/settings/api-keys/new-key');
	const until = (await page.locator('#previous-key time').getAttribute('datetime'))!;
	expect(Date.parse(until) - before).toBeGreaterThanOrEqual(36 * 3_600_000 - 1_000);
	expect(Date.parse(until) - before).toBeLessThan(36 * 3_600_000 + 60_000);
	await expect(page.locator('#previous-key').textContent()).resolves.toContain('keeps working until');
	const fresh = (await page.locator('#new-key-secret').textContent())!.trim();
	await checkInPlace('rotated-grace');

	// Both work meanwhile.
	await expect(keyCall(old.key)).resolves.toEqual({ status: 200, code: undefined });
	await expect(keyCall(fresh)).resolves.toEqual({ status: 200, code: undefined });
	await waitUntil(async () => (await ApiKey.findByPk(old.id))!.lastUsedAt !== null, { what: "the old key's last use recorded" });
	await page.goto('/settings/api-keys');
	const oldRow = page.locator(`#keys tbody tr[data-key-id="${old.id}"]`);
	await expect(oldRow.getAttribute('data-status')).resolves.toBe('rotated');
	await expect(oldRow.locator('.key-grace time').getAttribute('datetime')).resolves.toBe(until);
	// Who still uses it: its last use, as the old key's.
	await expect(oldRow.locator('td').nth(5).locator('time').count()).resolves.toBe(1);
	await expect(oldRow.locator('.key-grace').textContent()).resolves.toMatch(/^works until \d+ \w+ \d{4}, \d\d:\d\d UTC$/);
	await checkAtBothWidths('keys-grace');

	// Revoking the old key ends its grace at once; the new one goes on.
	await oldRow.getByRole('link', { name: 'Revoke' }).click();
	await page.waitForURL('**/revoke');
	await submit('Revoke key');
	await expect(keyCall(old.key)).resolves.toEqual({ status: 401, code: 'api_key_revoked' });
	await expect(keyCall(fresh)).resolves.toEqual({ status: 200, code: undefined });
	expect(await page.locator(`#keys tbody tr[data-key-id="${old.id}"] .key-grace`).count()).toBe(0);
});

test('a rotation left at 0 hours stops the old key at once, and the new key page says so', async () => {
	const old = await server.createKey('acme', ['read:users'], 'Badge reader');
	await page.goto(`/settings/api-keys/${old.id}/rotate`);
	await submit('Rotate key');
	await expect(page.locator('#previous-key').textContent()).resolves.toContain('stopped working the moment this one was created');
	await expect(keyCall(old.key)).resolves.toEqual({ status: 401, code: 'api_key_rotated' });
	expect((await ApiKey.findByPk(old.id))!.graceUntil).toBeNull();
});
