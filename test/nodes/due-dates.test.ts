/**
 * SPEC §17 in the action nodes, against the real reference server through n8n-core's
 * WorkflowExecute: LMS Enrollments 2.1's Due Date on Create (one item and a batch) and Update
 * (set, move, clear), Get Many's Overdue and Due Within, and LMS Courses' Get Completion Report,
 * each output compared item for item with what the API answers.
 */
import type { IDataObject } from 'n8n-workflow';

import { LmsCourses } from '../../nodes/LmsCourses/LmsCourses.node';
import { LmsEnrollments } from '../../nodes/LmsEnrollments/LmsEnrollments.node';
import { runNode } from '../helpers/n8n';
import { startTestServer, type TestServer } from '../helpers/server';
import { api as call, freePairs } from '../helpers/webhook-deployment';

const DAY = 24 * 60 * 60 * 1000;
const rl = (mode: string, value: string) => ({ __rl: true, mode, value });
const enrollments = new LmsEnrollments();
const courses = new LmsCourses();

let server: TestServer;
let apiKey: string;
let pairs: Array<{ student_id: string; course_id: string }>;
const as = () => ({ credentials: { baseUrl: server.baseUrl, apiKey } });

async function api(path: string): Promise<IDataObject> {
	const reply = await call(server.baseUrl, apiKey, `/api/v1${path}`);
	expect(reply.status).toBe(200);
	return reply.body as IDataObject;
}

async function apiAll(path: string): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	for (let page = 1; ; page++) {
		const body = await api(`${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`);
		records.push(...(body.data as IDataObject[]));
		if ((body.data as unknown[]).length < 100) return records;
	}
}

function createParameters(pair: { student_id: string; course_id: string }, dueDate?: string) {
	return {
		operation: 'create',
		student: rl('id', pair.student_id),
		course: rl('id', pair.course_id),
		...(dueDate === undefined ? {} : { additionalFields: { dueDate } }),
	};
}

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	apiKey = (await server.createKey('acme', ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments'], 'due dates')).key;
	pairs = await freePairs(server.baseUrl, apiKey);
}, 120_000);

afterAll(async () => {
	await server?.stop();
});

describe('LMS Enrollments 2.1: Due Date', () => {
	it('is the latest version; Create with a date picked in the editor (no zone) means the workflow’s time zone', async () => {
		expect(enrollments.currentVersion).toBe(2.2);
		const { items, error } = await runNode(enrollments, createParameters(pairs.shift()!, '2030-06-01T09:00:00'), { ...as(), timezone: 'Europe/Berlin', typeVersion: 2.1 });
		expect(error).toBeUndefined();
		expect(items[0].json.due_at).toBe('2030-06-01T07:00:00.000Z');
		expect(items[0].json.overdue).toBe(false);
		expect(items.map((item) => item.json)).toEqual([await api(`/enrollments/${items[0].json.id as string}`)]);
	});

	it('Create with a due date already past (a late assignment): overdue at once', async () => {
		const past = new Date(Date.now() - 2 * DAY).toISOString();
		const { items, error } = await runNode(enrollments, createParameters(pairs.shift()!, past), as());
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ due_at: past, overdue: true, status: 'active' });
	});

	it('Create for many items goes as batches and gives each enrollment its own due date', async () => {
		const dates = [1, 2, 3].map((days) => new Date(Date.now() + days * DAY).toISOString());
		const batch = dates.map((dueAt) => ({ ...pairs.shift()!, dueAt }));
		const { items, error } = await runNode(
			enrollments,
			{ operation: 'create', student: rl('id', '={{ $json.student_id }}'), course: rl('id', '={{ $json.course_id }}'), additionalFields: { dueDate: '={{ $json.dueAt }}' } },
			{ ...as(), items: batch },
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.due_at)).toEqual(dates);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		for (const item of items) expect(item.json).toEqual(await api(`/enrollments/${item.json.id as string}`));
	});

	it('a version-2 node has no Due Date: what it was saved with creates without one', async () => {
		const { items, error } = await runNode(enrollments, createParameters(pairs.shift()!, '2030-01-01T00:00:00Z'), { ...as(), typeVersion: 2 });
		expect(error).toBeUndefined();
		expect(items[0].json.due_at).toBeNull();
	});

	it('Update: Set Due Date moves the deadline, Clear Due Date removes it; a completed enrollment’s stays, with the LMS’s reason', async () => {
		const created = (await runNode(enrollments, createParameters(pairs.shift()!, new Date(Date.now() - DAY).toISOString()), as())).items[0].json;
		expect(created.overdue).toBe(true);
		const enrollment = rl('id', created.id as string);
		const later = new Date(Date.now() + 10 * DAY).toISOString();
		const moved = await runNode(enrollments, { operation: 'update', enrollment, change: 'dueDate', dueDate: later }, as());
		expect(moved.error).toBeUndefined();
		expect(moved.items[0].json).toMatchObject({ due_at: later, overdue: false });
		const cleared = await runNode(enrollments, { operation: 'update', enrollment, change: 'clearDueDate' }, as());
		expect(cleared.items.map((item) => item.json)).toEqual([await api(`/enrollments/${created.id as string}`)]);
		expect(cleared.items[0].json.due_at).toBeNull();

		const empty = await runNode(enrollments, { operation: 'update', enrollment, change: 'dueDate', dueDate: '={{ "" }}' }, as());
		expect(empty.error?.message).toBe('Due Date is empty');
		const bad = await runNode(enrollments, { operation: 'update', enrollment, change: 'dueDate', dueDate: 'next Friday' }, as());
		expect(bad.error?.message).toBe('Due Date must be a date and time, not "next Friday"');

		await runNode(enrollments, { operation: 'update', enrollment, change: 'complete' }, as());
		const refused = await runNode(enrollments, { operation: 'update', enrollment, change: 'dueDate', dueDate: later }, as());
		expect(refused.error?.message).toContain('completed');
		expect((await api(`/enrollments/${created.id as string}`)).due_at).toBeNull();
	});
});

describe('LMS Enrollments 2.2: a Due Date that is a date alone', () => {
	it('is the end of that day in the workflow’s time zone, as the LMS stores it; with a time or an offset it is what it says; 2.1 keeps its midnight', async () => {
		const zone = { ...as(), timezone: 'America/New_York' };
		const alone = await runNode(enrollments, createParameters(pairs.shift()!, '2030-12-01'), zone);
		expect(alone.error).toBeUndefined();
		expect(alone.items.map((item) => item.json)).toEqual([await api(`/enrollments/${alone.items[0].json.id as string}`)]);
		expect(alone.items[0].json.due_at).toBe('2030-12-02T04:59:59.999Z');

		const atNine = await runNode(enrollments, createParameters(pairs.shift()!, '2030-12-01T09:00:00'), zone);
		expect(atNine.items[0].json.due_at).toBe('2030-12-01T14:00:00.000Z');
		const withOffset = await runNode(enrollments, createParameters(pairs.shift()!, '2030-12-01T09:00:00+01:00'), zone);
		expect(withOffset.items[0].json.due_at).toBe('2030-12-01T08:00:00.000Z');
		const saved21 = await runNode(enrollments, createParameters(pairs.shift()!, '2030-12-01'), { ...zone, typeVersion: 2.1 });
		expect(saved21.items[0].json.due_at).toBe('2030-12-01T05:00:00.000Z');

		const moved = await runNode(enrollments, { operation: 'update', enrollment: rl('id', atNine.items[0].json.id as string), change: 'dueDate', dueDate: '2030-12-24' }, zone);
		expect(moved.items.map((item) => item.json)).toEqual([await api(`/enrollments/${atNine.items[0].json.id as string}`)]);
		expect(moved.items[0].json.due_at).toBe('2030-12-25T04:59:59.999Z');
	});
});

describe('LMS Enrollments Get Many: Overdue and Due Within', () => {
	beforeAll(async () => {
		// Some due soon, one due later, one overdue: whatever the seed has, these are there.
		const dates = [2, 5, 20, -1].map((days) => new Date(Date.now() + days * DAY).toISOString());
		for (const dueAt of dates) {
			const reply = await call(server.baseUrl, apiKey, '/api/v1/enrollments', { method: 'POST', body: { ...pairs.shift()!, due_at: dueAt } });
			expect(reply.status).toBe(201);
		}
	});

	it.each([
		['true', 'overdue=true'],
		['false', 'overdue=false'],
	])('Overdue %s gives what the API lists for %s, item for item', async (overdue, query) => {
		const { items, error } = await runNode(enrollments, { operation: 'getAll', returnAll: true, filters: { overdue } }, as());
		expect(error).toBeUndefined();
		const expected = await apiAll(`/enrollments?${query}`);
		expect(expected.length).toBeGreaterThan(0);
		expect(items.map((item) => item.json)).toEqual(expected);
	});

	it('Overdue Any sends no filter', async () => {
		const { items } = await runNode(enrollments, { operation: 'getAll', returnAll: false, limit: 30, filters: { overdue: 'any' } }, as());
		expect(items.map((item) => item.json)).toEqual((await api('/enrollments?per_page=30')).data);
	});

	it('Due Within 7 days: the active enrollments due from now to a week from now, as the API lists them', async () => {
		const before = Date.now();
		const { items, error } = await runNode(enrollments, { operation: 'getAll', returnAll: true, filters: { dueWithin: 7 } }, as());
		expect(error).toBeUndefined();
		const after = Date.now();
		const expected = await apiAll(
			`/enrollments?status=active&due_after=${new Date(before).toISOString()}&due_before=${new Date(after + 7 * DAY).toISOString()}`,
		);
		expect(items.length).toBeGreaterThanOrEqual(2);
		expect(items.map((item) => item.json)).toEqual(expected);
		for (const { json } of items) {
			const due = Date.parse(json.due_at as string);
			expect({ status: json.status, inWindow: due > before && due < after + 7 * DAY }).toEqual({ status: 'active', inWindow: true });
		}
	});

	it('Due Within with another Status says why and sends nothing', async () => {
		const { error } = await runNode(enrollments, { operation: 'getAll', returnAll: true, filters: { dueWithin: 7, status: 'completed' } }, as());
		expect(error?.message).toBe('Due Within lists active enrollments only, and Status asks for another state');
	});
});

describe('LMS Courses: Get Completion Report', () => {
	it('all courses: one item per row of the API’s report, in its order', async () => {
		const { items, error } = await runNode(courses, { operation: 'getCompletionReport' }, as());
		expect(error).toBeUndefined();
		const report = (await api('/reports/course_completion')).data as IDataObject[];
		expect(report.length).toBeGreaterThan(1);
		expect(items.map((item) => item.json)).toEqual(report);
		expect(items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	it.each(['id', 'list'])('one course picked in mode %s: its row', async (mode) => {
		const report = (await api('/reports/course_completion')).data as IDataObject[];
		const courseId = report[1].course_id as string;
		const { items, error } = await runNode(courses, { operation: 'getCompletionReport', filters: { course: rl(mode, courseId) } }, as());
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual((await api(`/reports/course_completion?course_id=${courseId}`)).data);
		expect(items.map((item) => item.json.course_id)).toEqual([courseId]);
	});

	it('a key without read:enrollments is told which scope it lacks', async () => {
		const key = (await server.createKey('acme', ['read:courses'], 'courses only')).key;
		const { error } = await runNode(courses, { operation: 'getCompletionReport' }, { credentials: { baseUrl: server.baseUrl, apiKey: key } });
		expect(error?.message).toContain('read:enrollments');
	});
});
