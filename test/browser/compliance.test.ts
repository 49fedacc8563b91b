/**
 * Settings → Compliance in a real browser (Debian's Chromium through playwright-core), against
 * the real server with the demo data (some enrollments overdue, some due soon): the report as a
 * table with a bar per course, its filters, and the CSV download, equal to what the API answers.
 */
import { readFile } from 'node:fs/promises';

import type { Browser, Page } from 'playwright-core';

import { Course } from '../../server/src/db';
import { findOrganization } from '../../server/src/organizations/service';
import { createUser } from '../../server/src/users/service';
import { artifactPath, launchBrowser } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let browser: Browser;
let key: string;

async function signIn(email: string, password: string): Promise<Page> {
	const context = await browser.newContext({ baseURL: server.baseUrl, acceptDownloads: true });
	const page = await context.newPage();
	await page.goto('/login');
	await page.getByLabel('Email').fill(email);
	await page.getByLabel('Password').fill(password);
	await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Sign in' }).click()]);
	return page;
}

function signedIn(organization: string, role: string): Promise<Page> {
	const found = server.demo!.accounts.find((a) => a.organization === organization && a.role === role);
	if (!found) throw new Error(`no demo ${role} in ${organization}`);
	return signIn(found.email, found.password);
}

interface ReportRow {
	course_id: string;
	title: string;
	enrolled: number;
	completed: number;
	active: number;
	overdue: number;
	certificates: { valid: number; expiring_30d: number; expired: number };
}

async function apiReport(query = '', accept = 'application/json'): Promise<{ rows: ReportRow[]; text: string }> {
	const res = await fetch(`${server.baseUrl}/api/v1/reports/course_completion${query}`, { headers: { authorization: `Bearer ${key}`, accept } });
	expect(res.status).toBe(200);
	const text = await res.text();
	return { rows: accept === 'text/csv' ? [] : (JSON.parse(text) as { data: ReportRow[] }).data, text };
}

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	browser = await launchBrowser();
	key = (await server.createKey('acme', ['read:enrollments'])).key;
}, 120_000);

afterAll(async () => {
	await browser?.close();
	await server?.stop();
});

test('the Super Admin opens it from Settings: a row per published course with the API\'s numbers and a bar (completed / in progress / overdue)', async () => {
	const { rows } = await apiReport();
	expect(rows.some((r) => r.overdue > 0)).toBe(true);
	const page = await signedIn('acme', 'super_admin');
	await page.goto('/settings');
	await Promise.all([page.waitForEvent('load'), page.locator('#compliance-link').click()]);
	expect(new URL(page.url()).pathname).toBe('/settings/compliance');
	expect(await page.locator('#report tbody tr').count()).toBe(rows.length);
	for (const r of rows) {
		const row = page.locator(`#report tr[data-course-id="${r.course_id}"]`);
		await expect(row.locator('.course-title').textContent()).resolves.toBe(r.title);
		await expect(row.locator('.enrolled').textContent()).resolves.toBe(String(r.enrolled));
		await expect(row.locator('.completed').textContent()).resolves.toBe(String(r.completed));
		await expect(row.locator('.overdue').textContent()).resolves.toBe(String(r.overdue));
		await expect(row.locator('.certificates-expiring').textContent()).resolves.toBe(String(r.certificates.expiring_30d));
		const overdueBar = row.locator('rect[data-segment="overdue"]');
		if (r.overdue > 0) {
			await expect(overdueBar.getAttribute('data-count')).resolves.toBe(String(r.overdue));
			// The bar is drawn: the overdue segment has a visible width on the page.
			expect((await overdueBar.boundingBox())!.width).toBeGreaterThan(0);
		} else {
			expect(await overdueBar.count()).toBe(0);
		}
	}
	await page.screenshot({ path: artifactPath('settings-compliance'), fullPage: true });
	await page.context().close();
});

test('filters: one course, only courses with overdue enrollments; the CSV download is the API\'s CSV for the same filter behind a byte-order mark, named for the organization and the day', async () => {
	const { rows } = await apiReport();
	const withOverdue = rows.filter((r) => r.overdue > 0);
	const page = await signedIn('acme', 'admin');
	await page.goto('/settings/compliance');
	await page.locator('#overdue-only').check();
	await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Show' }).click()]);
	expect(await page.locator('#report tbody tr').count()).toBe(withOverdue.length);
	await expect(page.locator('#total-overdue').textContent()).resolves.toBe(String(withOverdue.reduce((n, r) => n + r.overdue, 0)));

	const course = rows[1];
	await page.locator('#overdue-only').uncheck();
	await page.locator('#course').selectOption(course.course_id);
	await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Show' }).click()]);
	expect(await page.locator('#report tbody tr').count()).toBe(1);
	await expect(page.locator('#report tbody tr').getAttribute('data-course-id')).resolves.toBe(course.course_id);

	// The day is read before and after: a run across midnight (UTC) may see either.
	const before = new Date().toISOString().slice(0, 10);
	const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#csv-download').click()]);
	const after = new Date().toISOString().slice(0, 10);
	expect([`course-completion-acme-${before}.csv`, `course-completion-acme-${after}.csv`]).toContain(download.suggestedFilename());
	const bytes = await readFile(await download.path());
	expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
	const csv = bytes.subarray(3).toString('utf8');
	expect(csv).toBe((await apiReport(`?course_id=${course.course_id}`, 'text/csv')).text);
	expect(csv.split('\r\n')[0]).toMatch(/^course_id,title,enrolled,/);
	await page.context().close();
});

test('at 1280 px the report fits its box with a 70-character title: titles and headers wrap, every number in view without scrolling sideways', async () => {
	const { rows } = await apiReport();
	const course = await Course.findByPk(rows[0].course_id);
	const title = course!.title;
	await course!.update({ title: 'Effective Feedback for Managers of Distributed Teams Across Time Zones' });
	try {
		const page = await signedIn('acme', 'super_admin');
		await page.setViewportSize({ width: 1280, height: 900 });
		await page.goto('/settings/compliance');
		// A string, as the other browser tests evaluate: the test project's types have no DOM.
		const fit = await page.evaluate<{ scrolls: boolean; outside: string[] }>(`(() => {
			const wrap = document.querySelector('#report').closest('.table-wrap');
			const box = wrap.getBoundingClientRect();
			const cells = Array.from(document.querySelectorAll('#report th, #report td'));
			return {
				scrolls: wrap.scrollWidth > wrap.clientWidth,
				outside: cells.filter((c) => c.getBoundingClientRect().right > box.right + 0.5).map((c) => c.className || c.textContent),
			};
		})()`);
		expect(fit).toEqual({ scrolls: false, outside: [] });
		await page.screenshot({ path: artifactPath('settings-compliance-1280'), fullPage: true });
		await page.context().close();
	} finally {
		await course!.update({ title });
	}
});

test('an instructor gets no link and a 404, for the page and its CSV; signed out, the sign-in page', async () => {
	const organization = await findOrganization('acme');
	await createUser({ organization, email: 'ines.instructor@acme.test', name: 'Ines Instructor', role: 'instructor', password: 'a long enough password 42' });
	const page = await signIn('ines.instructor@acme.test', 'a long enough password 42');
	await page.goto('/settings');
	expect(await page.locator('#compliance-link').count()).toBe(0);
	expect((await page.goto('/settings/compliance'))?.status()).toBe(404);
	expect((await page.request.get('/settings/compliance.csv')).status()).toBe(404);
	await page.context().close();

	const anonymous = await (await browser.newContext({ baseURL: server.baseUrl })).newPage();
	await anonymous.goto('/settings/compliance');
	expect(new URL(anonymous.url()).pathname).toBe('/login');
	await anonymous.context().close();
});
