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

describe('2.2: a date alone is the end of that day in the workflow\'s zone', () => {
	it.each([
		// New York's winter and summer offsets, both days of daylight-saving changes, a zone east of Greenwich.
		['2026-12-01', 'America/New_York', '2026-12-02T04:59:59.999Z'],
		['2026-07-15', 'America/New_York', '2026-07-16T03:59:59.999Z'],
		['2026-03-08', 'America/New_York', '2026-03-09T03:59:59.999Z'],
		['2026-11-01', 'America/New_York', '2026-11-02T04:59:59.999Z'],
		['2026-12-01', 'Asia/Kolkata', '2026-12-01T18:29:59.999Z'],
		['2026-12-01', 'UTC', '2026-12-01T23:59:59.999Z'],
		// With a time, or an offset, the value is what it says: as in 2.1.
		['2026-12-01T00:00:00', 'America/New_York', '2026-12-01T05:00:00.000Z'],
		['2026-12-01 09:00', 'America/New_York', '2026-12-01T14:00:00.000Z'],
		['2026-12-01T00:00:00Z', 'America/New_York', '2026-12-01T00:00:00.000Z'],
		['2026-12-01T17:00:00+05:30', 'America/New_York', '2026-12-01T11:30:00.000Z'],
	])('%s in %s is %s', (value, zone, expected) => {
		expect(lmsDateTime(node, value, 'Due Date', zone, 0, 'endOfDay')).toBe(expected);
	});

	it('a Luxon DateTime ($today, at midnight with its offset) is taken as given, not moved to the end of the day', () => {
		const today = DateTime.fromISO('2026-12-01T00:00:00', { zone: 'America/New_York' });
		expect(lmsDateTime(node, today, 'Due Date', 'America/New_York', 0, 'endOfDay')).toBe('2026-12-01T05:00:00.000Z');
	});

	it.each(['2026-02-30', '2026-13-01', 'next Friday'])('%p fails naming the zone and what a date alone means', (value) => {
		expect(() => lmsDateTime(node, value, 'Due Date', 'America/New_York', 0, 'endOfDay')).toThrow(
			expect.objectContaining({
				message: `Due Date must be a date and time, not "${value}"`,
				description: expect.stringContaining("read in the workflow's time zone (America/New_York), and a date alone (2026-12-01) is the end of that day there"),
			}),
		);
	});

	it('Create and Update send the end of the day from 2.2; 2.1 nodes keep sending its midnight (the compatibility rule)', async () => {
		const bodies: unknown[] = [];
		lmsApi()
			.post('/api/v1/enrollments', (body) => bodies.push(body) > 0)
			.times(2)
			.reply(201, (_uri, body) => ({ id: 'enr_1', ...(body as object) }));
		lmsApi()
			.patch('/api/v1/enrollments/enr_1', (body) => bodies.push(body) > 0)
			.times(2)
			.reply(200, (_uri, body) => ({ id: 'enr_1', ...(body as object) }));
		const create = { operation: 'create', student: rl('id', 'usr_1'), course: rl('id', 'crs_1'), additionalFields: { dueDate: '2026-12-01' } };
		const update = { operation: 'update', enrollment: rl('id', 'enr_1'), change: 'dueDate', dueDate: '2026-12-01' };
		const zone = { credentials, timezone: 'America/New_York' };
		const latest = await runNode(new LmsEnrollments(), create, zone);
		await runNode(new LmsEnrollments(), create, { ...zone, typeVersion: 2.1 });
		await runNode(new LmsEnrollments(), update, zone);
		await runNode(new LmsEnrollments(), update, { ...zone, typeVersion: 2.1 });
		expect(bodies).toEqual([
			{ student_id: 'usr_1', course_id: 'crs_1', due_at: '2026-12-02T04:59:59.999Z' },
			{ student_id: 'usr_1', course_id: 'crs_1', due_at: '2026-12-01T05:00:00.000Z' },
			{ due_at: '2026-12-02T04:59:59.999Z' },
			{ due_at: '2026-12-01T05:00:00.000Z' },
		]);
		// The output is the LMS's record: due_at the UTC instant it stored.
		expect(latest.items[0].json).toMatchObject({ due_at: '2026-12-02T04:59:59.999Z' });
	});

	it('Create 2.2 in a batch: each item\'s date alone is the end of its day, in one request', async () => {
		let sent: unknown;
		lmsApi()
			.post('/api/v1/enrollments/batch', (body) => (sent = body) !== undefined)
			.reply(200, (_uri, body) => ({ data: (body as { items: object[] }).items.map((item, index) => ({ index, status: 201, body: { id: `enr_${index}`, ...item } })) }));
		const { items } = await runNode(
			new LmsEnrollments(),
			{ operation: 'create', student: rl('id', '={{ $json.student }}'), course: rl('id', 'crs_1'), additionalFields: { dueDate: '={{ $json.due }}' } },
			{
				credentials,
				timezone: 'Europe/Berlin',
				items: [
					{ student: 'usr_1', due: '2026-12-01' },
					{ student: 'usr_2', due: '2026-12-01T09:00:00Z' },
				],
			},
		);
		expect((sent as { items: unknown[] }).items).toEqual([
			{ student_id: 'usr_1', course_id: 'crs_1', due_at: '2026-12-01T22:59:59.999Z' },
			{ student_id: 'usr_2', course_id: 'crs_1', due_at: '2026-12-01T09:00:00.000Z' },
		]);
		expect(items.map((item) => item.json.due_at)).toEqual(['2026-12-01T22:59:59.999Z', '2026-12-01T09:00:00.000Z']);
	});

	it("2.2's Due Date says which zone it reads and where to change it; 2.1's reads as it shipped", () => {
		const v22 = new LmsEnrollments().nodeVersions[2.2].description.properties;
		const v21 = new LmsEnrollments().nodeVersions[2.1].description.properties;
		const dueDates = (properties: typeof v22) =>
			properties.flatMap((p) => (p.name === 'dueDate' ? [p] : ((p.options ?? []) as typeof v22).filter((o) => o.name === 'dueDate').map((o) => ({ ...o, displayOptions: p.displayOptions }))));
		const shown = (version: number) => (p: { displayOptions?: { show?: Record<string, unknown> } }) => {
			const rule = p.displayOptions?.show?.['@version'] as Array<number | { _cnd: { gte: number } }> | undefined;
			return rule === undefined || rule.some((r) => (typeof r === 'number' ? r === version : version >= r._cnd.gte));
		};
		const latest = dueDates(v22).filter(shown(2.2));
		expect(latest).toHaveLength(2);
		for (const field of latest) {
			expect(field.description).toContain("Read in the workflow's time zone: a date alone (2026-12-01) is the end of that day there");
			expect(field.description).toContain("workflow's Settings → Timezone");
			expect(field.hint).toBeUndefined();
		}
		const old = dueDates(v21).filter(shown(2.1));
		expect(old).toHaveLength(2);
		for (const field of old) expect(field.hint).toContain("A date picked here is read in the workflow's time zone (workflow Settings → Timezone");
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
