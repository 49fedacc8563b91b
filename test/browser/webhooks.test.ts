/**
 * Settings → Webhooks in a real browser (Debian's Chromium through playwright-core), against the
 * real server and a real receiver on 127.0.0.1: the Super Admin sees the endpoints and, on each
 * endpoint's page, what was delivered (GitHub's "Recent Deliveries": filters, paging, each
 * delivery's attempts with request and response, Redeliver at any time, the next attempt); adds an
 * endpoint (its secret shown once), edits it (same id and secret), sends a test event, disables
 * and enables, rotates the secret; deleting one on the page stops its deliveries at once. axe-core
 * checks each new page at a desktop width and at 390 px.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Browser, Page } from 'playwright-core';

import { AuditEvent, WebhookEndpoint } from '../../server/src/db';
import { artifactPath, launchBrowser } from '../helpers/browser';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';
import { api, freePairs } from '../helpers/webhook-deployment';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const SCREENSHOT = join(__dirname, '..', '..', 'docs', 'images', 'settings-webhooks.png');

let server: TestServer;
let browser: Browser;
let receiver: Receiver;
let key: string;

function account(organization: string, role: string): { email: string; password: string } {
	const found = server.demo!.accounts.find((a) => a.organization === organization && a.role === role);
	if (!found) throw new Error(`no demo ${role} in ${organization}`);
	return found;
}

async function signedIn(organization: string, role: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
	// bypassCSP for axe-core's script alone (the pages' CSP forbids inline scripts).
	const context = await browser.newContext({ baseURL: server.baseUrl, viewport, bypassCSP: true });
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
	// Its deliveries are on its own page.
	await Promise.all([page.waitForEvent('load'), row.locator('.endpoint-link').click()]);
	expect(new URL(page.url()).pathname).toBe(`/settings/webhooks/${created.body.id}`);
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

/** axe-core's WCAG 2.1 A/AA rules, and nothing wider than the screen (as test/browser/accessibility.test.ts checks). */
async function expectAccessible(page: Page): Promise<void> {
	await page.addScriptTag({ content: AXE_SOURCE });
	const violations = await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
		.then((result) => result.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) })))`);
	expect(violations).toEqual([]);
	const width = page.viewportSize()!.width;
	expect(await page.evaluate('document.documentElement.scrollWidth')).toBe(width);
}

/** Whether `header` carries a v1= signature of `body` under `secret` (SPEC §12). */
function signedWith(header: string, body: string, secret: string): boolean {
	const [t, ...v1] = header.split(',').map((part) => part.split('=')[1]);
	return v1.includes(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex'));
}

async function submit(page: Page, button: ReturnType<Page['getByRole']>): Promise<void> {
	await Promise.all([page.waitForEvent('load'), button.click()]);
}

/** Reloads the page until the delivery of `eventId` shows `httpStatus` (the worker sends in the background). */
async function deliveryRow(page: Page, eventId: string, httpStatus: string) {
	const row = page.locator(`#deliveries tr[data-event-id="${eventId}"]`);
	await waitUntil(
		async () => {
			await page.reload();
			return (await row.count()) === 1 && (await row.locator('.http-status').textContent()) === httpStatus;
		},
		{ interval: 200, what: `delivery ${eventId} with HTTP ${httpStatus}` },
	);
	return row;
}

describe.each([
	{ name: 'desktop', width: 1280, height: 900 },
	{ name: 'phone', width: 390, height: 844 },
])("the endpoint's whole life on the page, at $width px ($name)", ({ name, width, height }) => {
	test('add (secret once, id shown), edit, test event, filters, its attempts, Redeliver with the next attempt, failing badge, disable/enable, rotate', async () => {
		const hook = await startReceiver(`/page-${name}`);
		try {
			const page = await signedIn('acme', 'super_admin', { width, height });
			await page.goto('/settings/webhooks');
			await expectAccessible(page);

			// Add: the form's URL, events and description; the secret on the next page, once.
			await page.getByLabel('URL').fill(hook.url);
			await page.getByRole('checkbox', { name: 'user.created' }).check();
			await page.getByRole('checkbox', { name: 'enrollment.created' }).check();
			await page.getByLabel('Description (optional)').fill(`Warehouse loader (${name})`);
			await submit(page, page.getByRole('button', { name: 'Add endpoint' }));
			expect(new URL(page.url()).pathname).toBe('/settings/webhooks/secret');
			const secret = (await page.locator('#webhook-secret').textContent())!;
			expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
			const id = (await page.locator('.endpoint-id').textContent())!;
			expect(id).toMatch(/^whe_/);
			await expectAccessible(page);
			// Once: a reload leads back to the list, which never shows it.
			await page.reload();
			expect(new URL(page.url()).pathname).toBe('/settings/webhooks');
			expect(await page.content()).not.toContain(secret);
			const row = page.locator(`#endpoints tr[data-endpoint-id="${id}"]`);
			await expect(row.locator('.endpoint-id').textContent()).resolves.toBe(id);
			await expect(row.locator('.endpoint-description').textContent()).resolves.toBe(`Warehouse loader (${name})`);
			const stored = await WebhookEndpoint.findByPk(id);
			expect({ url: stored?.url, events: stored?.eventList, status: stored?.status, owner: stored?.apiKeyId }).toEqual({ url: hook.url, events: ['user.created', 'enrollment.created'], status: 'enabled', owner: null });
			// Made on the page, managed there: no API key reaches it (SPEC §22).
			expect((await api(server.baseUrl, key, `/api/v1/webhook_endpoints/${id}`)).status).toBe(404);
			expect(await AuditEvent.count({ where: { action: 'webhook.created', webhookEndpointId: id } })).toBe(1);

			// Edit: same id and secret, the picker saying what each type is.
			await submit(page, row.getByRole('link', { name: `Edit ${hook.url}` }));
			expect(new URL(page.url()).pathname).toBe(`/settings/webhooks/${id}/edit`);
			await expect(page.getByRole('checkbox', { name: 'enrollment.overdue' }).getAttribute('aria-describedby')).resolves.toMatch(/^event-help-/);
			await expect(page.locator('.event-help', { hasText: 'passed its due date' }).count()).resolves.toBe(1);
			await expect(page.getByRole('checkbox', { name: 'user.created' }).isChecked()).resolves.toBe(true);
			await expectAccessible(page);
			await page.getByRole('checkbox', { name: 'enrollment.completed' }).check();
			await page.getByLabel('Description (optional)').fill(`Warehouse loader, edited (${name})`);
			await submit(page, page.getByRole('button', { name: 'Save changes' }));
			expect(new URL(page.url()).pathname).toBe(`/settings/webhooks/${id}`);
			await expect(page.getByRole('status').textContent()).resolves.toContain('Its ID and signing secret are unchanged.');
			const edited = (await WebhookEndpoint.findByPk(id))!;
			expect({ events: edited.eventList, description: edited.description, secret: edited.secret }).toEqual({
				events: ['user.created', 'enrollment.created', 'enrollment.completed'],
				description: `Warehouse loader, edited (${name})`,
				secret: stored!.secret,
			});

			// The endpoint's page: its settings, its actions and its deliveries.
			const endpoint = page.locator('#endpoint');
			await expect(endpoint.locator('.endpoint-id').textContent()).resolves.toBe(id);
			await expect(page.locator('#no-deliveries').count()).resolves.toBe(1);
			await expectAccessible(page);

			// A test event: signed with the secret shown; its request and response on the delivery's page.
			await submit(page, endpoint.getByRole('button', { name: 'Send test event' }));
			await expect(page.getByRole('status').textContent()).resolves.toContain('webhook.test');
			const [test] = await hook.waitFor(1);
			expect(test.headers['lms-event-type']).toBe('webhook.test');
			expect(signedWith(String(test.headers['lms-signature']), test.body, secret)).toBe(true);
			const eventId = String(test.headers['lms-event-id']);
			const listed = await deliveryRow(page, eventId, '200');
			await expect(listed.locator('.result').textContent()).resolves.toBe('Delivered');
			// docs/images/settings-webhooks.png: always under artifacts/, into docs/ with UPDATE_DOCS_SCREENSHOT=1 (as settings.test.ts does).
			await page.screenshot({ path: artifactPath(`webhooks-endpoint-${name}`), fullPage: true });
			if (name === 'desktop' && process.env.UPDATE_DOCS_SCREENSHOT === '1') await page.screenshot({ path: SCREENSHOT, fullPage: true });
			// Filters: by status and event type, kept in the address and the form.
			await page.locator('#filter-status').selectOption('failed');
			await submit(page, page.getByRole('button', { name: 'Filter' }));
			await expect(page.locator('#no-deliveries').textContent()).resolves.toBe('No delivery matches these filters.');
			await page.locator('#filter-status').selectOption('delivered');
			await page.locator('#filter-event-type').selectOption('webhook.test');
			await submit(page, page.getByRole('button', { name: 'Filter' }));
			expect(new URL(page.url()).search).toBe('?status=delivered&event_type=webhook.test&from=&to=');
			await expect(page.locator('#deliveries tbody tr').count()).resolves.toBe(1);
			await expectAccessible(page);

			await submit(page, listed.locator('.delivery-link'));
			expect(new URL(page.url()).pathname).toMatch(new RegExp(`^/settings/webhooks/${id}/deliveries/whd_`));
			const attempt = page.locator('details.attempt[data-attempt="1"]');
			await expect(page.locator('#request-body').textContent()).resolves.toBe(test.body);
			await expect(attempt.locator('.request-headers').textContent()).resolves.toContain(`LMS-Signature: ${String(test.headers['lms-signature'])}`);
			await expect(attempt.locator('.response-status').textContent()).resolves.toBe('HTTP 200 · 2 bytes');
			await expect(attempt.locator('.attempt-duration').textContent()).resolves.toMatch(/^\d+ ms$/);
			// A loopback receiver: its answer's body is not kept (SPEC §22).
			await expect(attempt.locator('.response-body-not-kept').count()).resolves.toBe(1);
			await expectAccessible(page);
			await page.screenshot({ path: artifactPath(`webhooks-delivery-${name}`), fullPage: true });

			// Redeliver: the same event again, now; this time the receiver fails, so a next attempt is owed and shown.
			hook.answer((_r, res) => res.writeHead(503, { 'Content-Type': 'text/plain' }).end('warehouse is down'));
			await submit(page, page.getByRole('button', { name: 'Redeliver' }));
			await expect(page.getByRole('status').textContent()).resolves.toContain('is being sent again now');
			const [, resent] = await hook.waitFor(2);
			expect(resent.headers['lms-event-id']).toBe(eventId);
			await waitUntil(
				async () => {
					await page.reload();
					return (await page.locator('details.attempt[data-attempt="2"] .attempt-status').count()) === 1;
				},
				{ interval: 200, what: 'the second attempt on the page' },
			);
			const second = page.locator('details.attempt[data-attempt="2"]');
			await expect(second.getAttribute('open')).resolves.toBe('');
			await expect(second.locator('.attempt-status').textContent()).resolves.toBe('HTTP 503');
			await expect(second.locator('.response-body-not-kept').count()).resolves.toBe(1);
			await expect(page.locator('#delivery .result').textContent()).resolves.toBe('Retrying (HTTP 503)');
			await expect(page.locator('#next-attempt time').getAttribute('datetime')).resolves.toMatch(/^\d{4}-/);
			await expectAccessible(page);
			// Redeliver again while it is failing: sent now, no 409.
			await submit(page, page.getByRole('button', { name: 'Redeliver' }));
			await hook.waitFor(3);
			await submit(page, page.getByRole('link', { name: `Endpoint ${id}` }));
			await expect(endpoint.locator('[data-failing]').textContent()).resolves.toBe('Failing');

			// Disable, then enable: nothing can be sent meanwhile; enabled again, the failing run is forgotten.
			await submit(page, endpoint.getByRole('button', { name: 'Disable' }));
			await expect(endpoint.getAttribute('data-status')).resolves.toBe('disabled');
			expect((await WebhookEndpoint.findByPk(id))?.status).toBe('disabled');
			await submit(page, endpoint.getByRole('button', { name: 'Enable' }));
			await expect(endpoint.getAttribute('data-status')).resolves.toBe('enabled');
			expect(await endpoint.locator('[data-failing]').count()).toBe(0);
			expect((await WebhookEndpoint.findByPk(id))?.status).toBe('enabled');
			for (const action of ['webhook.disabled', 'webhook.enabled']) {
				expect(await AuditEvent.count({ where: { action, webhookEndpointId: id } })).toBe(1);
			}
			// In the audit log the keys page shows, naming the person who did it and the endpoint.
			await page.goto('/settings/api-keys');
			const disabledEntry = page.locator('#audit-log tr', { hasText: 'Webhook endpoint disabled' }).filter({ hasText: id });
			await expect(disabledEntry.textContent()).resolves.toContain(account('acme', 'super_admin').email);
			await page.goto(`/settings/webhooks/${id}`);

			// Rotate: the new secret once; for 24 h deliveries carry both signatures.
			hook.answer((_r, res) => res.writeHead(200).end('ok'));
			await submit(page, endpoint.getByRole('button', { name: 'Rotate secret' }));
			expect(new URL(page.url()).pathname).toBe('/settings/webhooks/secret');
			const rotated = (await page.locator('#webhook-secret').textContent())!;
			expect(rotated).toMatch(/^whsec_/);
			expect(rotated).not.toBe(secret);
			await expect(page.locator('#previous-secret').textContent()).resolves.toContain('both the old and the new secret');
			await submit(page, page.getByRole('link', { name: 'I have stored the secret' }));
			expect(new URL(page.url()).pathname).toBe(`/settings/webhooks/${id}`);
			const sentBefore = hook.received.length;
			await submit(page, endpoint.getByRole('button', { name: 'Send test event' }));
			const afterRotation = (await hook.waitFor(sentBefore + 1)).find((r) => r.headers['lms-event-type'] === 'webhook.test' && r.headers['lms-event-id'] !== eventId)!;
			expect(signedWith(String(afterRotation.headers['lms-signature']), afterRotation.body, rotated)).toBe(true);
			expect(signedWith(String(afterRotation.headers['lms-signature']), afterRotation.body, secret)).toBe(true);
			await page.context().close();
		} finally {
			await hook.close();
		}
	}, 90_000);
});

test('a refused URL is said with the form, which keeps what was typed; nothing is created', async () => {
	const page = await signedIn('acme', 'super_admin');
	await page.goto('/settings/webhooks');
	const before = await WebhookEndpoint.count();
	await page.getByLabel('URL').fill('http://169.254.169.254/latest/meta-data');
	await page.getByRole('checkbox', { name: 'Every event type' }).check();
	await submit(page, page.getByRole('button', { name: 'Add endpoint' }));
	await expect(page.locator('#form-error').textContent()).resolves.toMatch(/not a public address/);
	await expect(page.getByLabel('URL').inputValue()).resolves.toBe('http://169.254.169.254/latest/meta-data');
	await expect(page.getByRole('checkbox', { name: 'Every event type' }).isChecked()).resolves.toBe(true);
	// No event type chosen: said in the person's terms.
	await page.getByRole('checkbox', { name: 'Every event type' }).uncheck();
	await page.getByLabel('URL').fill(receiver.url);
	await submit(page, page.getByRole('button', { name: 'Add endpoint' }));
	await expect(page.locator('#form-error').textContent()).resolves.toContain('Choose at least one event type');
	expect(await WebhookEndpoint.count()).toBe(before);

	// The same on the edit form: said with it, what was typed kept, the endpoint unchanged.
	const { id } = (await api(server.baseUrl, key, '/api/v1/webhook_endpoints', { method: 'POST', body: { url: receiver.url, events: ['enrollment.created'] } })).body;
	await page.goto(`/settings/webhooks/${id}/edit`);
	await page.getByLabel('URL').fill('http://169.254.169.254/latest/meta-data');
	await submit(page, page.getByRole('button', { name: 'Save changes' }));
	await expect(page.locator('#form-error').textContent()).resolves.toMatch(/not a public address/);
	await expect(page.getByLabel('URL').inputValue()).resolves.toBe('http://169.254.169.254/latest/meta-data');
	await expectAccessible(page);
	// A redirect brought the refusal (post/redirect/get): Reload fetches the form with GET, and says it no more.
	expect(new URL(page.url()).pathname).toBe(`/settings/webhooks/${id}/edit`);
	expect((await page.reload())!.request().method()).toBe('GET');
	expect(await page.locator('#form-error').count()).toBe(0);
	expect((await api(server.baseUrl, key, `/api/v1/webhook_endpoints/${id}`)).body.url).toBe(receiver.url);
	await page.context().close();
});

test("the page's writes without the CSRF token are refused and change nothing", async () => {
	const { id } = (await api(server.baseUrl, key, '/api/v1/webhook_endpoints', { method: 'POST', body: { url: receiver.url, events: ['*'] } })).body;
	const page = await signedIn('acme', 'super_admin');
	for (const action of ['disable', 'test', 'rotate']) {
		expect((await page.request.post(`/settings/webhooks/${id}/${action}`, { form: { _csrf: 'forged' } })).status()).toBe(403);
	}
	expect((await page.request.post(`/settings/webhooks/${id}/edit`, { form: { _csrf: 'forged', url: 'https://example.com/x', events: '*' } })).status()).toBe(403);
	expect((await page.request.post('/settings/webhooks', { form: { _csrf: 'forged', url: receiver.url, events: '*' } })).status()).toBe(403);
	expect((await api(server.baseUrl, key, `/api/v1/webhook_endpoints/${id}`)).body).toMatchObject({ status: 'enabled', url: receiver.url });
	expect((await api(server.baseUrl, key, `/api/v1/webhook_endpoints/${id}/deliveries`)).body.data).toEqual([]);
	expect(await AuditEvent.count({ where: { action: 'webhook.rotated', webhookEndpointId: id } })).toBe(0);
	await page.context().close();
});
