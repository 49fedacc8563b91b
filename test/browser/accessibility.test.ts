/**
 * Issue 30: every settings page in a real Chromium, at a desktop width and on a 390 px phone, with
 * axe-core's WCAG 2.1 A/AA rules: no violation, nothing wider than the screen, every action in
 * reach, and a focus ring that can be seen.
 */
import { readFileSync } from 'node:fs';

import type { Browser, Page } from 'playwright-core';

import { createResetLink } from '../../server/src/users/reset-links';
import { findAccount } from '../../server/src/users/set-password';
import { artifactPath, launchBrowser } from '../helpers/browser';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startTestServer, type TestServer } from '../helpers/server';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const WIDTHS = [
	{ name: 'desktop', width: 1280, height: 900 },
	{ name: 'phone', width: 390, height: 844 },
];

let server: TestServer;
let browser: Browser;
let receiver: Receiver;
let keyId: string;
let resetPath: string;
let endpointId: string;
let deliveryId: string;

function account(organization: string, role: string): { email: string; password: string } {
	const found = server.demo!.accounts.find((a) => a.organization === organization && a.role === role);
	if (!found) throw new Error(`no demo ${role} in ${organization}`);
	return found;
}

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE: 'true' } });
	browser = await launchBrowser();
	receiver = await startReceiver();
	const { id, key } = await server.createKey('acme', ['manage:webhooks', 'read:users', 'read:enrollments'], 'A key with a rather long label for a phone screen');
	keyId = id;
	const created = await fetch(`${server.baseUrl}/api/v1/webhook_endpoints`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ url: `${receiver.url}/a/rather/long/path/for/the/endpoint/url`, events: ['*'], description: 'n8n: welcome e-mails' }),
	});
	expect(created.status).toBe(201);
	endpointId = ((await created.json()) as { id: string }).id;
	// A delivery (a test event) for the endpoint's log and the delivery's page.
	const test = await fetch(`${server.baseUrl}/api/v1/webhook_endpoints/${endpointId}/test`, { method: 'POST', headers: { Authorization: `Bearer ${key}` } });
	expect(test.status).toBe(201);
	deliveryId = ((await test.json()) as { id: string }).id;
	const { token } = await createResetLink(await findAccount(account('acme', 'admin').email), { kind: 'cli' }, {});
	resetPath = `/login/reset/${token}`;
}, 120_000);

afterAll(async () => {
	await browser?.close();
	await receiver?.close();
	await server?.stop();
});

/** axe-core's WCAG 2.1 A and AA rules on the page as it is. (The pages' CSP forbids inline scripts: the context bypasses it for axe alone.) */
async function axeViolations(page: Page): Promise<Array<{ id: string; nodes: number; help: string }>> {
	await page.addScriptTag({ content: AXE_SOURCE });
	// Evaluated in the page, as text: the tests are compiled without the DOM's types.
	return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
		.then((result) => result.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.length })))`);
}

/** What sticks out of a narrow screen: the page's own width, and any visible action beyond it. */
function overflow(page: Page): Promise<{ pageWidth: number; outside: string[] }> {
	return page.evaluate(`(() => {
		const outside = Array.from(document.querySelectorAll('a, button, input, select, textarea'))
			.filter((element) => {
				const box = element.getBoundingClientRect();
				return box.width > 0 && box.height > 0 && (box.left < 0 || box.right > window.innerWidth);
			})
			.map((element) => (element.textContent || '').trim() || element.getAttribute('name') || element.tagName);
		return { pageWidth: document.documentElement.scrollWidth, outside };
	})()`);
}

const PAGES = [
	{ name: 'login', path: '/login', as: undefined },
	{ name: 'settings', path: '/settings', as: ['acme', 'super_admin'] },
	{ name: 'password', path: '/settings/password', as: ['acme', 'super_admin'] },
	{ name: 'reset-password', path: () => resetPath, as: undefined },
	{ name: 'api-keys', path: '/settings/api-keys', as: ['acme', 'super_admin'] },
	{ name: 'rotate-confirm', path: () => `/settings/api-keys/${keyId}/rotate`, as: ['acme', 'super_admin'] },
	{ name: 'revoke-confirm', path: () => `/settings/api-keys/${keyId}/revoke`, as: ['acme', 'super_admin'] },
	{ name: 'webhooks', path: '/settings/webhooks', as: ['acme', 'super_admin'] },
	{ name: 'webhook-endpoint', path: () => `/settings/webhooks/${endpointId}`, as: ['acme', 'super_admin'] },
	{ name: 'webhook-edit', path: () => `/settings/webhooks/${endpointId}/edit`, as: ['acme', 'super_admin'] },
	{ name: 'webhook-delivery', path: () => `/settings/webhooks/${endpointId}/deliveries/${deliveryId}`, as: ['acme', 'super_admin'] },
	{ name: 'compliance', path: '/settings/compliance', as: ['acme', 'admin'] },
	{ name: 'settings-admin', path: '/settings', as: ['acme', 'admin'] },
	{ name: 'settings-business', path: '/settings', as: ['initech', 'super_admin'] },
] as const;

describe.each(WIDTHS)('at $width px ($name)', ({ name: widthName, width, height }) => {
	test.each(PAGES)('$name: no axe violation, nothing off-screen', async ({ name, path, as }) => {
		const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width, height }, bypassCSP: true });
		const page = await context.newPage();
		if (as) {
			const { email, password } = account(as[0], as[1]);
			await page.goto('/login');
			await page.getByLabel('Email').fill(email);
			await page.getByLabel('Password').fill(password);
			await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
		}
		const response = await page.goto(typeof path === 'function' ? path() : path);
		expect(response!.status()).toBe(200);
		await page.screenshot({ path: artifactPath(`a11y-${name}-${widthName}`), fullPage: true });
		expect(await axeViolations(page)).toEqual([]);
		expect(await overflow(page)).toEqual({ pageWidth: width, outside: [] });
		await context.close();
	}, 60_000);
});

test('the focus ring is drawn in the accent colour, 3 px, on every kind of control', async () => {
	const context = await browser.newContext({ baseURL: server.baseUrl });
	const page = await context.newPage();
	await page.goto('/login');
	await page.keyboard.press('Tab');
	const focused = await page.evaluate<{ tag: string; outline: string }>(`(() => {
		const style = getComputedStyle(document.activeElement);
		return { tag: document.activeElement.tagName, outline: style.outlineStyle + ' ' + style.outlineWidth + ' ' + style.outlineColor };
	})()`);
	// --accent #2f54c8 is 6.6:1 against white (WCAG 1.4.11 asks 3:1).
	expect(focused.outline).toBe('solid 3px rgb(47, 84, 200)');
	await context.close();
});
