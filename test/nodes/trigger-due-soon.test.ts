/**
 * LMS Trigger v2's Enrollment Due Soon (SPEC §17) against the real reference server, through
 * n8n-core's PollContext with static data kept between polls: nothing already due soon at
 * activation, then each enrollment once per due date (assigned late, moved, brought in by the
 * clock), never a completed one, the Course filter, Enrollment Overdue beside it, and what a
 * quiet poll costs. Items are the enrollment as the API returns it.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { LmsTrigger } from '../../nodes/LmsTrigger/LmsTrigger.node';
import { DAY_MS } from '../../nodes/LmsTrigger/v2/expiring';
import { Organization } from '../../server/src/db';
import { runPoll } from '../helpers/n8n';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';
import { api, freePairs } from '../helpers/webhook-deployment';
import { feedCaughtUp } from '../server/api-fixtures';

const lmsTrigger = new LmsTrigger();
let server: TestServer;
let key: string;
let org: Organization;
let pairs: Array<{ student_id: string; course_id: string }>;

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
	key = (await server.createKey('acme', ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments'])).key;
	org = (await Organization.findOne({ where: { slug: 'acme' } }))!;
	pairs = await freePairs(server.baseUrl, key);
}, 120_000);

afterAll(async () => {
	await server?.stop();
});

const inDays = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString();

async function enroll(dueAt: string | null, pick = (p: (typeof pairs)[number]) => Boolean(p)): Promise<IDataObject> {
	const pair = pairs.splice(pairs.findIndex(pick), 1)[0];
	const reply = await api(server.baseUrl, key, '/api/v1/enrollments', { method: 'POST', body: { ...pair, due_at: dueAt } });
	expect(reply.status).toBe(201);
	return reply.body as IDataObject;
}

async function patch(id: unknown, body: IDataObject): Promise<IDataObject> {
	const reply = await api(server.baseUrl, key, `/api/v1/enrollments/${String(id)}`, { method: 'PATCH', body });
	expect(reply.status).toBe(200);
	return reply.body as IDataObject;
}

async function record(id: unknown): Promise<IDataObject> {
	return (await api(server.baseUrl, key, `/api/v1/enrollments/${String(id)}`)).body as IDataObject;
}

interface Poller {
	staticData: IDataObject;
	parameters: INodeParameters;
}

async function poll(state: Poller, mode: 'trigger' | 'manual' = 'trigger'): Promise<{ items: IDataObject[]; requests: number }> {
	await feedCaughtUp(server, key, org.id);
	const before = await server.requests({ route: /^\/api\/v1\// });
	const { output } = await runPoll(lmsTrigger, state.parameters, { credentials: { baseUrl: server.baseUrl, apiKey: key }, staticData: state.staticData, mode });
	return { items: output ? output[0].map((item) => item.json) : [], requests: (await server.requests({ route: /^\/api\/v1\// })) - before };
}

/** What the trigger outputs for an enrollment due soon: the API's record plus the made-up event's fields. */
async function dueSoonItemOf(id: unknown, daysLeft: number): Promise<IDataObject> {
	return { ...(await record(id)), event_id: null, event_type: 'enrollment.due_soon', event_created_at: expect.any(String), days_left: daysLeft };
}

describe('Enrollment Due Soon', () => {
	it('each enrollment once per due date: late assignments, moved dates and the clock; never before activation, never completed; a quiet poll is one request', async () => {
		const alreadySoon = await enroll(inDays(3));
		const state: Poller = { staticData: {}, parameters: { events: ['enrollment.due_soon'], dueDaysBefore: 7 } };
		expect((await poll(state)).items).toEqual([]);

		// Assigned with less than 7 days left: at the next poll, once.
		const late = await enroll(inDays(5));
		await enroll(inDays(20)); // not within 7 days
		await enroll(null); // no deadline
		expect((await poll(state)).items).toEqual([await dueSoonItemOf(late.id, 5)]);
		expect(await poll(state)).toEqual({ items: [], requests: 1 });

		// A moved deadline is a new one: it fires again; moved out of the window and back, too.
		await patch(alreadySoon.id, { due_at: inDays(4) });
		await patch(late.id, { due_at: inDays(30) });
		expect((await poll(state)).items).toEqual([await dueSoonItemOf(alreadySoon.id, 4)]);
		await patch(late.id, { due_at: inDays(6) });
		expect((await poll(state)).items).toEqual([await dueSoonItemOf(late.id, 6)]);

		// Completed, withdrawn or cleared before the moment: nothing.
		const completed = await enroll(inDays(8));
		const withdrawn = await enroll(inDays(8));
		const cleared = await enroll(inDays(8));
		await patch(completed.id, { status: 'completed' });
		await patch(withdrawn.id, { status: 'withdrawn' });
		await patch(cleared.id, { due_at: null });
		// The clock brings a deadline into the window: 7 days before it, not earlier.
		const dueAt = Date.now() + 7 * DAY_MS + 1_500;
		const byClock = await enroll(new Date(dueAt).toISOString());
		expect((await poll(state)).items).toEqual([]);
		await waitUntil(() => Date.now() > dueAt - 7 * DAY_MS, { what: 'the deadline entering the 7-day window' });
		expect((await poll(state)).items).toEqual([await dueSoonItemOf(byClock.id, 7)]);
		expect((await poll(state)).items).toEqual([]);
	});

	it('with the Course filter only that course’s enrollments; beside Enrollment Overdue, both come', async () => {
		const course = pairs[0].course_id;
		const state: Poller = { staticData: {}, parameters: { events: ['enrollment.due_soon', 'enrollment.overdue'], dueDaysBefore: 2, filters: { course: { __rl: true, mode: 'id', value: course } } } };
		expect((await poll(state)).items).toEqual([]);
		const inCourse = await enroll(inDays(1), (p) => p.course_id === course);
		await enroll(inDays(1), (p) => p.course_id !== course);
		const overdue = await enroll(inDays(-1), (p) => p.course_id === course);
		const { items } = await poll(state);
		expect(items.map((item) => [item.event_type, item.id])).toEqual([
			['enrollment.overdue', overdue.id],
			['enrollment.due_soon', inCourse.id],
		]);
		expect(items[1]).toEqual(await dueSoonItemOf(inCourse.id, 1));
	});

	it('Fetch Test Event shows an enrollment due soon and changes nothing', async () => {
		const state: Poller = { staticData: {}, parameters: { events: ['enrollment.due_soon'], dueDaysBefore: 7 } };
		const { items } = await poll(state, 'manual');
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({ event_type: 'enrollment.due_soon', status: 'active', event_id: null });
		expect(Object.values(state.staticData)).toEqual(Object.values(state.staticData).map(() => ({})));
	});
});
