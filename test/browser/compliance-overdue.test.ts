/**
 * Settings → Compliance, who is overdue (SPEC §20, issue 37/42), in a real browser at 1280 and
 * 390 px: pick a group, read who in it is overdue (name, e-mail, course, due date, days late) a
 * page at a time, and download that whole list as a CSV that Excel opens with the names right
 * (UTF-8 byte-order mark) and whose name says which group and day. axe finds nothing.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

import type { Browser, Page } from 'playwright-core';

import { artifactPath, launchBrowser } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let server: TestServer;
let browser: Browser;
let key: string;
const GROUP = 'Zoë’s Field Sales & Support';
let groupId: string;
let emptyGroupId: string;
/** The group's overdue enrollments as the API lists them: [enrollment id, e-mail, due_at]. */
let expected: Array<{ id: string; email: string; name: string; due: string; course: string }>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's JSON, read by field
type Json = any;

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
	const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
		method,
		headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: res.status, body: res.status === 204 ? null : await res.json() };
}

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	browser = await launchBrowser();
	key = (await server.createKey('acme', ['read:users', 'write:users', 'read:courses', 'read:enrollments', 'write:enrollments'])).key;
	// 60 new students, each enrolled with a deadline already passed: more than one page of 50.
	const stamp = Date.now();
	const users = await api('POST', '/users/batch', {
		items: Array.from({ length: 60 }, (_, i) => ({ name: `Łukasz Late ${String(i).padStart(2, '0')}`, email: `late${i}-${stamp}@acme.test`, role: 'student' })),
	});
	expect(users.status).toBe(200);
	const studentIds: string[] = users.body.data.map((d: { status: number; body: { id: string } }) => {
		expect(d.status).toBe(201);
		return d.body.id;
	});
	const course = (await api('GET', '/courses?per_page=1')).body.data[0];
	const day = 86_400_000;
	const enrolled = await api('POST', '/enrollments/batch', {
		items: studentIds.map((id, i) => ({ student_id: id, course_id: course.id, due_at: new Date(Date.now() - (i + 1) * day - 3_600_000).toISOString() })),
	});
	expect(enrolled.body.data.every((d: { status: number }) => d.status === 201)).toBe(true);
	const group = await api('POST', '/groups', { name: GROUP });
	expect(group.status).toBe(201);
	groupId = group.body.id;
	expect((await api('POST', `/groups/${groupId}/members`, { user_ids: studentIds })).status).toBe(200);
	emptyGroupId = (await api('POST', '/groups', { name: 'Nobody late' })).body.id;

	const overdue = (await api('GET', `/enrollments?group_id=${groupId}&overdue=true&per_page=100&expand=student,course`)).body;
	expect(overdue.pagination.total).toBe(60);
	expected = overdue.data
		.map((e: Json) => ({ id: e.id, email: e.student.email, name: e.student.name, due: e.due_at, course: e.course.title }))
		.sort((a: { due: string; id: string }, b: { due: string; id: string }) => (a.due === b.due ? (a.id < b.id ? -1 : 1) : a.due < b.due ? -1 : 1));
}, 180_000);

afterAll(async () => {
	await browser?.close();
	await server?.stop();
});

async function signedIn(width: number, height: number): Promise<Page> {
	const found = server.demo!.accounts.find((a) => a.organization === 'acme' && a.role === 'admin')!;
	const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width, height }, acceptDownloads: true, bypassCSP: true });
	const page = await context.newPage();
	await page.goto('/login');
	await page.getByLabel('Email').fill(found.email);
	await page.getByLabel('Password').fill(found.password);
	await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
	return page;
}

async function axeViolations(page: Page): Promise<Array<{ id: string; nodes: number }>> {
	await page.addScriptTag({ content: AXE_SOURCE });
	return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
		.then((result) => result.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.length })))`);
}

const pageWidth = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth');

describe.each([
	{ name: 'desktop', width: 1280, height: 900 },
	{ name: 'phone', width: 390, height: 844 },
])('at $width px', ({ name, width, height }) => {
	test('pick a group: who is overdue, 50 a page, oldest deadline first; Next and Previous; nothing wider than the screen; axe 0', async () => {
		const page = await signedIn(width, height);
		await page.goto('/settings/compliance');
		await page.getByLabel('Group').selectOption({ label: GROUP });
		await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'List overdue' }).click()]);
		await expect(page.locator('#overdue-count').textContent()).resolves.toContain('1–50 of 60 overdue enrollments');
		const rows = page.locator('#overdue tbody tr');
		expect(await rows.count()).toBe(50);
		const first = expected[0];
		await expect(rows.nth(0).getAttribute('data-enrollment-id')).resolves.toBe(first.id);
		await expect(rows.nth(0).locator('.member-name').textContent()).resolves.toBe(first.name);
		await expect(rows.nth(0).locator('.member-email').textContent()).resolves.toBe(first.email);
		await expect(rows.nth(0).locator('.member-course').textContent()).resolves.toBe(first.course);
		await expect(rows.nth(0).locator('.member-due').textContent()).resolves.toBe(first.due.slice(0, 10));
		// The oldest deadline passed 60 days and an hour ago.
		await expect(rows.nth(0).locator('.member-late').textContent()).resolves.toBe('60');
		expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-enrollment-id')))).toEqual(expected.slice(0, 50).map((e) => e.id));
		await expect(rows.nth(0).locator('.member-name').isVisible()).resolves.toBe(true);
		expect(await pageWidth(page)).toBe(width);
		expect(await axeViolations(page)).toEqual([]);
		await page.screenshot({ path: artifactPath(`settings-compliance-overdue-${name}`), fullPage: true });

		await Promise.all([page.waitForEvent('load'), page.locator('#overdue-next').click()]);
		await expect(page.locator('#overdue-count').textContent()).resolves.toContain('51–60 of 60');
		expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-enrollment-id')))).toEqual(expected.slice(50).map((e) => e.id));
		expect(await page.locator('#overdue-next').count()).toBe(0);
		// The group stays picked, and the course report above keeps its place.
		await expect(page.getByLabel('Group').inputValue()).resolves.toBe(groupId);
		expect(await page.locator('#report tbody tr').count()).toBeGreaterThan(0);
		await Promise.all([page.waitForEvent('load'), page.locator('#overdue-prev').click()]);
		expect(await rows.count()).toBe(50);
		await page.context().close();
	}, 90_000);
});

test('the CSV: every overdue member of the group (not one page), UTF-8 with a byte-order mark, named overdue-<group>-<date>.csv', async () => {
	const page = await signedIn(1280, 900);
	await page.goto(`/settings/compliance?group=${groupId}`);
	const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#overdue-csv').click()]);
	const today = new Date().toISOString().slice(0, 10);
	expect(download.suggestedFilename()).toBe(`overdue-zoe-s-field-sales-support-${today}.csv`);
	const bytes = await readFile(await download.path());
	expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
	const lines = bytes.toString('utf8').slice(1).split('\r\n');
	expect(lines[0]).toBe('name,email,course,due_date,days_late,user_id,course_id,enrollment_id');
	expect(lines.at(-1)).toBe('');
	const body = lines.slice(1, -1);
	expect(body).toHaveLength(60);
	expect(body.map((line) => line.split(',').at(-1))).toEqual(expected.map((e) => e.id));
	expect(body[0].startsWith(`${expected[0].name},${expected[0].email},`)).toBe(true);
	expect(body[0]).toContain(`,${expected[0].due.slice(0, 10)},60,`);
	await page.context().close();
});

test('a group with nobody overdue says so; a group of nobody (or another organization\'s) lists nothing and its CSV is 404', async () => {
	const page = await signedIn(1280, 900);
	await page.goto(`/settings/compliance?group=${emptyGroupId}`);
	await expect(page.locator('#overdue-none').textContent()).resolves.toContain('Nobody in Nobody late is overdue.');
	expect(await page.locator('#overdue').count()).toBe(0);
	const csv = await page.request.get(`/settings/compliance/overdue.csv?group=${emptyGroupId}`);
	expect(csv.status()).toBe(200);
	expect(await csv.text()).toBe('\uFEFFname,email,course,due_date,days_late,user_id,course_id,enrollment_id\r\n');
	await page.goto('/settings/compliance?group=grp_notours');
	expect(await page.locator('#overdue-count, #overdue-none').count()).toBe(0);
	expect((await page.request.get('/settings/compliance/overdue.csv?group=grp_notours')).status()).toBe(404);
	await page.context().close();
});
