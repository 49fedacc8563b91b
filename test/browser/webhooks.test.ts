/**
 * Settings → Webhooks in a real browser (Debian's Chromium through playwright-core), against the
 * real server and a real receiver: the Super Admin sees the endpoints and what was delivered,
 * and deleting one on the page stops its deliveries at once.
 */
import type { Browser, Page } from 'playwright-core';

import { launchBrowser } from '../helpers/browser';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startTestServer, type TestServer } from '../helpers/server';
import { api, freePairs } from '../helpers/webhook-deployment';

let server: TestServer;
let browser: Browser;
let receiver: Receiver;
let key: string;

function account(organization: string, role: string): { email: string; password: string } {
	const found = server.demo!.accounts.find((a) => a.organization === organization && a.role === role);
	if (!found) throw new Error(`no demo ${role} in ${organization}`);
	return found;
}

async function signedIn(organization: string, role: string): Promise<Page> {
	const context = await browser.newContext({ baseURL: server.baseUrl });
	const page = await context.newPage();
	const { email, password } = account(organization, role);
	await page.goto('/login');
	await page.getByLabel('Email').fill(email);
	await page.getByLabel('Password').fill(password);
	await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
	return page;
}

let pairs: Array<{ student_id: string; course_id: string }>;
async function enroll(): Promise<void> {
	pairs ??= await freePairs(server.baseUrl, key);
	expect((await api(server.baseUrl, key, '/api/v1/enrollments', { method: 'POST', body: pairs.shift() })).status).toBe(201);
}

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '100' } });
	browser = await launchBrowser();
	receiver = await startReceiver();
	key = (await server.createKey('acme', ['manage:webhooks', 'read:users', 'read:courses', 'read:enrollments', 'write:enrollments'])).key;
}, 120_000);

afterAll(async () => {
	await browser?.close();
	await receiver?.close();
	await server?.stop();
});

test('the Super Admin sees endpoints, their status and recent deliveries (event, HTTP status, attempts)', async () => {
	const created = await api(server.baseUrl, key, '/api/v1/webhook_endpoints', {
		method: 'POST',
		body: { url: receiver.url, events: ['enrollment.created'], description: 'n8n: welcome e-mails' },
	});
	await enroll();
	await receiver.waitFor(1);
	const eventId = String(receiver.received[0].headers['lms-event-id']);

	const page = await signedIn('acme', 'super_admin');
	await page.goto('/settings');
	await Promise.all([page.waitForEvent('load'), page.locator('#webhooks-link').click()]);
	expect(new URL(page.url()).pathname).toBe('/settings/webhooks');
	const row = page.locator(`#endpoints tr[data-endpoint-id="${created.body.id}"]`);
	await expect(row.locator('.endpoint-url').textContent()).resolves.toBe(receiver.url);
	await expect(row.textContent()).resolves.toMatch(/Enabled[\s\S]*n8n: welcome e-mails|n8n: welcome e-mails[\s\S]*Enabled/);
	const delivery = page.locator(`#deliveries tr[data-event-id="${eventId}"]`);
	await expect(delivery.textContent()).resolves.toContain('enrollment.created');
	await expect(delivery.locator('.http-status').textContent()).resolves.toBe('200');
	await expect(delivery.locator('.attempts').textContent()).resolves.toBe('1');
	expect(await page.content()).not.toMatch(/whsec_/);
	await page.context().close();
});

test('delete asks for confirmation, then the endpoint is gone from the API too', async () => {
	const { id } = (await api(server.baseUrl, key, '/api/v1/webhook_endpoints', { method: 'POST', body: { url: receiver.url, events: ['*'] } })).body;
	const page = await signedIn('acme', 'super_admin');
	await page.goto('/settings/webhooks');
	await Promise.all([page.waitForEvent('load'), page.locator(`tr[data-endpoint-id="${id}"]`).getByRole('link', { name: 'Delete' }).click()]);
	await expect(page.locator('h1').textContent()).resolves.toBe('Delete this endpoint?');
	// Nothing happens until the person confirms.
	expect((await api(server.baseUrl, key, `/api/v1/webhook_endpoints/${id}`)).status).toBe(200);
	await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Delete endpoint' }).click()]);
	expect(new URL(page.url()).pathname).toBe('/settings/webhooks');
	await expect(page.getByRole('status').textContent()).resolves.toContain('nothing more is sent to it');
	expect(await page.locator(`tr[data-endpoint-id="${id}"]`).count()).toBe(0);
	expect((await api(server.baseUrl, key, `/api/v1/webhook_endpoints/${id}`)).status).toBe(404);
	await page.context().close();
});

test('a delete without the CSRF token is refused and deletes nothing', async () => {
	const { id } = (await api(server.baseUrl, key, '/api/v1/webhook_endpoints', { method: 'POST', body: { url: receiver.url, events: ['*'] } })).body;
	const page = await signedIn('acme', 'super_admin');
	const reply = await page.request.post(`/settings/webhooks/${id}/delete`, { form: { _csrf: 'forged' } });
	expect(reply.status()).toBe(403);
	expect((await api(server.baseUrl, key, `/api/v1/webhook_endpoints/${id}`)).status).toBe(200);
	await page.context().close();
});

test('an admin, and a Super Admin without the Enterprise plan, get no link and a 404', async () => {
	for (const [organization, role] of [['acme', 'admin'], ['initech', 'super_admin']]) {
		const page = await signedIn(organization, role);
		await page.goto('/settings');
		expect(await page.locator('#webhooks-link').count()).toBe(0);
		const reply = await page.goto('/settings/webhooks');
		expect(reply?.status()).toBe(404);
		await page.context().close();
	}
});
