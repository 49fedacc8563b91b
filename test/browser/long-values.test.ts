/**
 * Issue 42, done when: every Settings page at 1280 and 390 px, with 200-character values wherever
 * it shows what people typed (organization, names, e-mail addresses, course titles, group names
 * and descriptions, API key labels, webhook URLs and descriptions), is no wider than the screen,
 * has no axe violation, and its main action is reached with Tab and used with Enter.
 *
 * The pages are the settings router's own GET routes (walked at run time), so a new page without
 * a line below fails the first test instead of going unchecked.
 */
import { readFileSync } from 'node:fs';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { Course, Organization, User } from '../../server/src/db';
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

/** `prefix` followed by unbroken wide letters up to 200 characters: the worst case for wrapping. */
const long = (prefix: string, length = 200) => `${prefix}${'W'.repeat(length - prefix.length)}`;
/** 64 characters before the @ and 63 in each part of the domain (the most the rule allows), 200 in all. */
const longEmail = (who: string) => `${long(who, 64)}@${long('x', 63)}.${long('y', 63)}.${long('z', 200 - 64 - 1 - 2 * (63 + 1) - '.test'.length)}.test`;

let server: TestServer;
let browser: Browser;
let receiver: Receiver;
let ids: { key: string; endpoint: string; delivery: string; group: string; reset: string };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's JSON, read by field
type Json = any;

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE: 'true' } });
	browser = await launchBrowser();
	receiver = await startReceiver();
	const scopes = ['read:users', 'write:users', 'read:courses', 'read:enrollments', 'write:enrollments', 'manage:webhooks'];
	// A key's label is at most 100 characters (rules.ts): the longest it can be.
	const created = await server.createKey('acme', scopes, long('Key label ', 100));
	const api = async (method: string, path: string, body?: unknown): Promise<Json> => {
		const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
			method,
			headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
		return res.json();
	};

	// Organization names and course titles have no API to write them: the models, as the CLI would.
	await Organization.update({ name: long('Organization ') }, { where: { slug: 'acme' } });
	const acme = (await Organization.findOne({ where: { slug: 'acme' } }))!;
	const course = await Course.findOne({ where: { organizationId: acme.id, status: 'published' } });
	await course!.update({ title: long('Course ') });
	// The accounts that sign in, long too (names and addresses are shown in the top bar and on Settings).
	// The Super Admin signs in; the Admin's 200-character address is shown on the reset page.
	await User.update({ name: long('Name of the Super Admin ') }, { where: { email: account('super_admin').email } });
	const admin = account('admin');
	await User.update({ name: long('Name of the Admin '), email: longEmail('admin') }, { where: { email: admin.email } });
	admin.email = longEmail('admin');

	const student = await api('POST', '/users', { name: long('Student '), email: longEmail('student'), role: 'student' });
	await api('POST', '/enrollments', { student_id: student.id, course_id: course!.id, due_at: new Date(Date.now() - 3 * 86_400_000).toISOString() });
	const group = await api('POST', '/groups', { name: long('Group '), description: long('Description ') });
	await api('POST', `/groups/${group.id}/members`, { user_ids: [student.id] });

	const url = `${receiver.url}/${long('hook-', 200 - receiver.url.length - 1)}`;
	const endpoint = await api('POST', '/webhook_endpoints', { url, events: ['*'], description: long('Endpoint ') });
	const delivery = await api('POST', `/webhook_endpoints/${endpoint.id}/test`);
	const { token } = await createResetLink(await findAccount(account('admin').email), { kind: 'cli' }, {});
	ids = { key: created.id, endpoint: endpoint.id, delivery: delivery.id, group: group.id, reset: token };
}, 180_000);

afterAll(async () => {
	await browser?.close();
	await receiver?.close();
	await server?.stop();
});

function account(role: 'super_admin' | 'admin'): { email: string; password: string } {
	const found = server.demo!.accounts.find((a) => a.organization === 'acme' && a.role === role);
	if (!found) throw new Error(`no demo ${role} in acme`);
	return found;
}

interface PageCase {
	/** The router's pattern this case visits. */
	route: string;
	path: () => string;
	as?: 'super_admin';
	/** The page's main action: reached with Tab alone. */
	action: { role: 'button' | 'link'; name: string };
}

/**
 * One line per settings page. Routes that answer no page of their own: CSV downloads, and
 * addresses that only redirect (a one-time page seen once is reached by its form, below).
 */
const NOT_PAGES = ['/', '/settings/compliance.csv', '/settings/compliance/overdue.csv', '/settings/api-keys/new-key', '/settings/webhooks/secret'];
const PAGES: PageCase[] = [
	{ route: '/login', path: () => '/login', action: { role: 'button', name: 'Sign in' } },
	{ route: '/logout', path: () => '/logout', as: 'super_admin', action: { role: 'button', name: 'Sign out' } },
	{ route: '/settings', path: () => '/settings', as: 'super_admin', action: { role: 'link', name: 'Manage API keys' } },
	{ route: '/settings/password', path: () => '/settings/password', as: 'super_admin', action: { role: 'button', name: 'Change password' } },
	{ route: '/login/reset/:token', path: () => `/login/reset/${ids.reset}`, action: { role: 'button', name: 'Set password' } },
	{ route: '/settings/api-keys', path: () => '/settings/api-keys', as: 'super_admin', action: { role: 'button', name: 'Create key' } },
	{ route: '/settings/api-keys/:keyId/:action', path: () => `/settings/api-keys/${ids.key}/rotate`, as: 'super_admin', action: { role: 'button', name: 'Rotate key' } },
	{ route: '/settings/webhooks', path: () => '/settings/webhooks', as: 'super_admin', action: { role: 'button', name: 'Add endpoint' } },
	{ route: '/settings/webhooks/:endpointId', path: () => `/settings/webhooks/${ids.endpoint}`, as: 'super_admin', action: { role: 'button', name: 'Send test event' } },
	{ route: '/settings/webhooks/:endpointId/edit', path: () => `/settings/webhooks/${ids.endpoint}/edit`, as: 'super_admin', action: { role: 'button', name: 'Save changes' } },
	{ route: '/settings/webhooks/:endpointId/delete', path: () => `/settings/webhooks/${ids.endpoint}/delete`, as: 'super_admin', action: { role: 'button', name: 'Delete endpoint' } },
	{
		route: '/settings/webhooks/:endpointId/deliveries/:deliveryId',
		path: () => `/settings/webhooks/${ids.endpoint}/deliveries/${ids.delivery}`,
		as: 'super_admin',
		action: { role: 'button', name: 'Redeliver' },
	},
	{ route: '/settings/compliance', path: () => `/settings/compliance?group=${ids.group}`, as: 'super_admin', action: { role: 'button', name: 'List overdue' } },
];

/** Every GET route under the app's routers, as written (Express keeps each route's pattern). */
function getRoutes(): string[] {
	type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };
	const app = server.httpServer.listeners('request')[0] as unknown as { router: { stack: Layer[] } };
	const walk = (stack: Layer[]): string[] =>
		stack.flatMap((layer) => (layer.route ? (layer.route.methods.get ? [layer.route.path] : []) : layer.handle?.stack ? walk(layer.handle.stack) : []));
	return walk(app.router.stack);
}

const isPage = (route: string) => route === '/' || route === '/logout' || route.startsWith('/login') || route.startsWith('/settings');

async function axeViolations(page: Page): Promise<Array<{ id: string; nodes: number; help: string }>> {
	await page.addScriptTag({ content: AXE_SOURCE });
	return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
		.then((result) => result.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.length })))`);
}

/** The page's width against the window's, and what sticks out (the widest elements, for the failure message). */
function overflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number; widest: string[] }> {
	return page.evaluate(`(() => {
		const widest = Array.from(document.body.querySelectorAll('*'))
			.filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
			.map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : ''))
			.slice(-5);
		return { scrollWidth: document.scrollingElement.scrollWidth, innerWidth: window.innerWidth, widest };
	})()`);
}

async function expectFits(page: Page, name: string): Promise<void> {
	await page.screenshot({ path: artifactPath(`long-values-${name}`), fullPage: true });
	// The page itself never scrolls sideways (a table may, inside its own .table-wrap); what sticks out is named on failure.
	const measured = await overflow(page);
	if (measured.scrollWidth > measured.innerWidth) expect({ name, ...measured }).toEqual({ name, scrollWidth: measured.innerWidth });
	expect(await axeViolations(page)).toEqual([]);
}

/** Tab (and nothing else) from the top of the page until `target` has the focus; how many presses. */
async function tabTo(page: Page, target: ReturnType<Page['getByRole']>): Promise<number> {
	const handle = await target.elementHandle();
	await page.evaluate('document.activeElement && document.activeElement.blur()');
	for (let presses = 1; presses <= 120; presses++) {
		await page.keyboard.press('Tab');
		if (await handle.evaluate((element) => element === (element.ownerDocument as unknown as { activeElement: unknown }).activeElement)) return presses;
	}
	throw new Error('not reached with Tab');
}

async function signIn(context: BrowserContext, role: 'super_admin'): Promise<void> {
	const page = await context.newPage();
	const { email, password } = account(role);
	await page.goto('/login');
	await page.getByLabel('Email').fill(email);
	await page.getByLabel('Password').fill(password);
	await Promise.all([page.waitForURL('**/settings'), page.getByRole('button', { name: 'Sign in' }).click()]);
	await page.close();
}

test('every settings page the router answers has a case here', () => {
	const routes = getRoutes().filter(isPage);
	expect(routes.length).toBeGreaterThan(10);
	expect([...new Set(routes)].sort()).toEqual([...PAGES.map((p) => p.route), ...NOT_PAGES].sort());
});

describe.each(WIDTHS)('at $width px ($name)', ({ name: widthName, width, height }) => {
	const contexts = new Map<string, BrowserContext>();
	const contextFor = async (as: PageCase['as']): Promise<BrowserContext> => {
		const key = as ?? 'anonymous';
		if (!contexts.has(key)) {
			const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width, height }, bypassCSP: true, acceptDownloads: false });
			if (as) await signIn(context, as);
			contexts.set(key, context);
		}
		return contexts.get(key)!;
	};
	afterAll(async () => {
		for (const context of contexts.values()) await context.close();
	});

	test.each(PAGES)('$route: no wider than the screen, axe 0, its main action reached with Tab', async ({ route, path, as, action }) => {
		const page = await (await contextFor(as)).newPage();
		const response = await page.goto(path());
		expect(response!.status()).toBe(200);
		await expectFits(page, `${route.replace(/[/:]+/g, '-')}-${widthName}`);
		await tabTo(page, page.getByRole(action.role, { name: action.name, exact: true }).first());
		await page.close();
	}, 90_000);

	test('keyboard only: a new API key and a new webhook endpoint with long values; their one-time pages and notices fit', async () => {
		const page = await (await contextFor('super_admin')).newPage();
		await page.goto('/settings/api-keys');
		await page.getByLabel('Label').fill(long(`Keyboard key ${widthName} `, 100));
		await page.getByRole('checkbox', { name: /read:users/ }).check();
		const create = page.getByRole('button', { name: 'Create key', exact: true });
		await tabTo(page, create);
		await Promise.all([page.waitForURL('**/settings/api-keys/new-key'), page.keyboard.press('Enter')]);
		await expectFits(page, `new-key-${widthName}`);

		await page.goto('/settings/webhooks');
		await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/${long(`kbd-${widthName}-`, 200 - receiver.url.length - 1)}`);
		await page.getByLabel(/Description/).fill(long('Typed description '));
		await page.locator('#new-endpoint-form input[type="checkbox"]').first().check();
		const add = page.getByRole('button', { name: 'Add endpoint', exact: true });
		await tabTo(page, add);
		await Promise.all([page.waitForURL('**/settings/webhooks/secret'), page.keyboard.press('Enter')]);
		await expectFits(page, `webhook-secret-${widthName}`);

		// A refused form repeats the long URL in its notice (issue 42): it wraps too.
		await page.goto('/settings/webhooks');
		await page.getByLabel('URL', { exact: true }).fill(`http://${long('not-a-host-', 190)}`);
		await tabTo(page, add);
		await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
		expect(await page.locator('.notice-error').count()).toBeGreaterThan(0);
		await expectFits(page, `webhook-refused-${widthName}`);
		await page.close();
	}, 120_000);

	test('keyboard only: the Admin, whose address is 200 characters, signs in; a wrong password first repeats the address and fits', async () => {
		const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width, height }, bypassCSP: true });
		const page = await context.newPage();
		const { email, password } = account('admin');
		const signIn = page.getByRole('button', { name: 'Sign in', exact: true });
		await page.goto('/login');
		await page.getByLabel('Email').fill(email);
		await page.getByLabel('Password').fill(`${password}-wrong`);
		await tabTo(page, signIn);
		await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
		await expect(page.getByLabel('Email').inputValue()).resolves.toBe(email);
		await expectFits(page, `sign-in-refused-${widthName}`);
		await page.getByLabel('Password').fill(password);
		await tabTo(page, signIn);
		await Promise.all([page.waitForURL('**/settings'), page.keyboard.press('Enter')]);
		await expectFits(page, `signed-in-long-address-${widthName}`);
		await context.close();
	}, 90_000);
});
