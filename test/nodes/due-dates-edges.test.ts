/**
 * Edges of SPEC §17 in the nodes that the real server cannot stage: how a Due Date reaches the
 * LMS from every form n8n can hand over (a zone-less pick in a time zone with daylight saving,
 * a date alone, a Luxon DateTime from an expression, a Date), the requests the deadline filters
 * make, an answer that is not the completion report, and LMS Trigger's Enrollment Due Soon past
 * its memory bound. The real exchanges are in due-dates.test.ts and trigger-due-soon.test.ts.
 */
import type { INode } from 'n8n-workflow';
import { DateTime } from 'luxon';
import nock from 'nock';

import { LmsCourses } from '../../nodes/LmsCourses/LmsCourses.node';
import { LmsEnrollments } from '../../nodes/LmsEnrollments/LmsEnrollments.node';
import { LmsTrigger } from '../../nodes/LmsTrigger/LmsTrigger.node';
import { MAX_WINDOW } from '../../nodes/LmsTrigger/v2/due-soon';
import { lmsDateTime } from '../../nodes/shared/dates';
import { runNode, runPoll } from '../helpers/n8n';
import { credentials, listPage, lmsApi, problem } from '../helpers/lms-api-mock';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => {
	nock.enableNetConnect();
	nock.restore();
});

const rl = (mode: string, value: string) => ({ __rl: true, mode, value });
const DAY = 24 * 60 * 60 * 1000;
const node = { name: 'LMS Enrollments' } as INode;

describe('Due Date as the LMS takes it', () => {
	it.each([
		// Winter and summer time in Berlin, and the hour that does not exist on the spring change.
		['2026-01-15T09:00:00', 'Europe/Berlin', '2026-01-15T08:00:00.000Z'],
		['2026-07-15T09:00:00', 'Europe/Berlin', '2026-07-15T07:00:00.000Z'],
		['2026-03-29T02:30:00', 'Europe/Berlin', '2026-03-29T01:30:00.000Z'],
		['2026-11-01T01:30:00.250', 'America/New_York', '2026-11-01T05:30:00.250Z'],
		['2026-12-01', 'Asia/Kolkata', '2026-11-30T18:30:00.000Z'],
		['2026-12-01 17:00', 'UTC', '2026-12-01T17:00:00.000Z'],
		['2026-12-01T17:00:00+05:30', 'Europe/Berlin', '2026-12-01T11:30:00.000Z'],
		['2026-12-01T17:00:00Z', 'America/New_York', '2026-12-01T17:00:00.000Z'],
	])('%s in %s is %s', (value, zone, expected) => {
		expect(lmsDateTime(node, value, 'Due Date', zone)).toBe(expected);
	});

	it('a Luxon DateTime (an expression such as $now.plus) and a Date are taken as they are', () => {
		const at = DateTime.fromISO('2026-12-01T09:00:00', { zone: 'Pacific/Auckland' });
		expect(lmsDateTime(node, at, 'Due Date', 'Europe/Berlin')).toBe('2026-11-30T20:00:00.000Z');
		expect(lmsDateTime(node, new Date('2026-12-01T09:00:00Z'), 'Due Date', 'Europe/Berlin')).toBe('2026-12-01T09:00:00.000Z');
	});

	it.each(['', null, undefined])('%p is no due date', (value) => {
		expect(lmsDateTime(node, value, 'Due Date', 'UTC')).toBeUndefined();
	});

	it.each(['tomorrow', '2026-13-01T00:00:00', '2026-12-01T25:00:00', '12/01/2026', 20261201])('%p fails with what to give', (value) => {
		expect(() => lmsDateTime(node, value, 'Due Date', 'Europe/Berlin')).toThrow(`Due Date must be a date and time, not "${String(value)}"`);
	});
});

describe('requests', () => {
	it('Create 2.1 sends due_at in UTC; an empty Due Date sends none', async () => {
		const bodies: unknown[] = [];
		lmsApi()
			.post('/api/v1/enrollments', (body) => bodies.push(body) > 0)
			.times(2)
			.reply(201, (_uri, body) => ({ id: 'enr_1', ...(body as object) }));
		const parameters = { operation: 'create', student: rl('id', 'usr_1'), course: rl('id', 'crs_1') };
		await runNode(new LmsEnrollments(), { ...parameters, additionalFields: { dueDate: '2026-12-01T09:00:00' } }, { credentials, timezone: 'Europe/Berlin' });
		await runNode(new LmsEnrollments(), { ...parameters, additionalFields: { dueDate: '' } }, { credentials });
		expect(bodies).toEqual([
			{ student_id: 'usr_1', course_id: 'crs_1', due_at: '2026-12-01T08:00:00.000Z' },
			{ student_id: 'usr_1', course_id: 'crs_1' },
		]);
	});

	it('Update Clear Due Date sends due_at null', async () => {
		const scope = lmsApi().patch('/api/v1/enrollments/enr_1', { due_at: null }).reply(200, { id: 'enr_1', due_at: null });
		const { error } = await runNode(new LmsEnrollments(), { operation: 'update', enrollment: rl('id', 'enr_1'), change: 'clearDueDate' }, { credentials });
		expect(error).toBeUndefined();
		expect(scope.isDone()).toBe(true);
	});

	it('Due Within and Overdue together: status active, a window from now, overdue as chosen', async () => {
		let query: Record<string, string> = {};
		lmsApi()
			.get('/api/v1/enrollments')
			.query((q) => {
				query = q as Record<string, string>;
				return true;
			})
			.reply(200, listPage([], 1, 100, 0));
		const before = Date.now();
		await runNode(new LmsEnrollments(), { operation: 'getAll', returnAll: true, filters: { dueWithin: 3, overdue: 'false' } }, { credentials });
		const after = Date.now();
		expect(Object.keys(query).sort()).toEqual(['due_after', 'due_before', 'overdue', 'page', 'per_page', 'status']);
		expect(query).toMatchObject({ status: 'active', overdue: 'false' });
		expect(Date.parse(query.due_after)).toBeGreaterThanOrEqual(before);
		expect(Date.parse(query.due_before) - Date.parse(query.due_after)).toBe(3 * DAY);
		expect(Date.parse(query.due_before)).toBeLessThanOrEqual(after + 3 * DAY);
	});

	it('Get Completion Report: an answer that is not the report says to check the Base URL', async () => {
		lmsApi().get('/api/v1/reports/course_completion').query({ course_id: 'crs_1' }).reply(200, { rows: [] });
		const { error } = await runNode(new LmsCourses(), { operation: 'getCompletionReport', filters: { course: rl('id', 'crs_1') } }, { credentials });
		expect(error?.message).toBe('The answer from /reports/course_completion is not the LMS completion report: check the Base URL in the credential');
	});
});

describe('LMS Trigger: Enrollment Due Soon with more than 1,000 enrollments due within N days', () => {
	const parameters = { events: ['enrollment.due_soon'], dueDaysBefore: 7 };
	const enrollment = (id: string, dueAt: string) => ({ id, student_id: 'usr_1', course_id: 'crs_1', status: 'active', due_at: dueAt, overdue: false });

	it('reads only what the clock brings in past the previous bound, emits it, and keeps the state when a read fails', async () => {
		const queries: Array<Record<string, string>> = [];
		const staticData = {};
		const poll = async () => {
			const { output } = await runPoll(new LmsTrigger(), parameters, { credentials, staticData });
			return output ? output[0].map((item) => item.json) : [];
		};
		const capture = (q: object) => queries.push(q as Record<string, string>) > 0;

		lmsApi().get('/api/v1/enrollments').query(capture).reply(200, listPage([], 1, 100, MAX_WINDOW + 1));
		expect(await poll()).toEqual([]);
		const firstUpper = Date.parse(queries[0].due_before) - 1;
		expect(queries[0]).toMatchObject({ status: 'active', page: '1', per_page: '100' });

		const soon = enrollment('enr_1', new Date(firstUpper + 1).toISOString());
		lmsApi().get('/api/v1/enrollments').query(capture).reply(403, problem(403, 'insufficient_scope', 'This key lacks read:enrollments.')[1]);
		await expect(poll()).rejects.toThrow();
		lmsApi().get('/api/v1/enrollments').query(capture).reply(200, listPage([soon], 1, 100, 1));
		const items = await poll();
		expect(items).toEqual([expect.objectContaining({ id: 'enr_1', event_type: 'enrollment.due_soon', event_id: null, days_left: 7 })]);
		// Both reads after activation start where the activation's window ended: the failed one moved nothing.
		expect(queries.slice(1).map((q) => Date.parse(q.due_after))).toEqual([firstUpper, firstUpper]);
		expect(queries).toHaveLength(3);
	});
});
