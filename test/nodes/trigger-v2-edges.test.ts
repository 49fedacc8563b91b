/**
 * LMS Trigger version 2's edge cases, against nock: a cursor the LMS no longer keeps (410), a
 * cursor that grows old because nothing of the chosen types happens, a state version 0.1 left
 * (its first walk through a long feed cut short by n8n's poll budget), an empty feed at
 * activation, and an answer that is not the feed or its head.
 */
import nock from 'nock';
import type { IDataObject, INodeType, IPollFunctions } from 'n8n-workflow';

import { LmsTrigger } from '../../nodes/LmsTrigger/LmsTrigger.node';
import { REFRESH_AFTER_MS } from '../../nodes/LmsTrigger/v2/poll';
import { runPoll } from '../helpers/n8n';
import { credentials, lmsApi, problem } from '../helpers/lms-api-mock';

const lmsTrigger = new LmsTrigger();
const NODE = 'node:LMS Trigger';

function event(n: number, type = 'enrollment.completed', at = new Date().toISOString()) {
	return { id: `evt_${String(n).padStart(28, '0')}`, type, created_at: at, data: { object: { id: `enr_${n}`, course_id: 'crs_1' } } };
}

const state = (staticData: IDataObject) => (staticData[NODE] as IDataObject | undefined)?.state as IDataObject | undefined;

async function poll(staticData: IDataObject, nodeType: INodeType | LmsTrigger = lmsTrigger, events = ['enrollment.completed']) {
	const { output } = await runPoll(nodeType, { events }, { credentials, staticData });
	return output ? output[0].map((item) => item.json) : [];
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
	nock.cleanAll();
	jest.useRealTimers();
});
afterAll(() => {
	nock.enableNetConnect();
	nock.restore();
});

test('a cursor the LMS no longer keeps (410 cursor_expired): the poll fails saying what was lost and what to do, and the next poll starts again from now', async () => {
	const staticData: IDataObject = {};
	lmsApi().get('/api/v1/events/head').reply(200, { after: event(1).id });
	expect(await poll(staticData)).toEqual([]);
	expect(state(staticData)).toMatchObject({ after: event(1).id });

	lmsApi()
		.get('/api/v1/events')
		.query({ limit: '100', type: 'enrollment.completed', after: event(1).id })
		.reply(...problem(410, 'cursor_expired', 'The event named by after is older than the events kept.'));
	const failure = poll(staticData);
	await expect(failure).rejects.toThrow(
		/no longer keeps the events after the last one this trigger read \(\d{4}-\d\d-\d\dT[\d:.]+Z\).*starts again from now at its next poll.*LMS Enrollments, LMS Certificates or LMS Users/,
	);
	expect(state(staticData)).toBeUndefined();

	// A new baseline at the feed's head: what the feed holds is from before, nothing is emitted.
	lmsApi().get('/api/v1/events/head').reply(200, { after: event(7).id });
	expect(await poll(staticData)).toEqual([]);
	expect(state(staticData)).toMatchObject({ after: event(7).id });
});

test('a cursor that grew old (a week without an event of the chosen types) moves to the newest event of any type: one extra request a week', async () => {
	const staticData: IDataObject = {};
	lmsApi().get('/api/v1/events/head').reply(200, { after: event(1).id });
	expect(await poll(staticData, lmsTrigger, ['enrollment.withdrawn'])).toEqual([]);

	// A week and a bit later (only Date is faked: nock and n8n keep real timers).
	jest.useFakeTimers({ doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
	jest.setSystemTime(Date.now() + REFRESH_AFTER_MS + 60_000);

	const filtered = lmsApi().get('/api/v1/events').query({ limit: '100', type: 'enrollment.withdrawn', after: event(1).id }).reply(200, { data: [], has_more: false });
	const unfiltered = lmsApi()
		.get('/api/v1/events')
		.query({ limit: '100', after: event(1).id })
		.reply(200, { data: [event(2, 'enrollment.progressed'), event(3, 'enrollment.withdrawn'), event(4, 'user.created')], has_more: false });
	// What the refresh reads of the chosen types is emitted like any other.
	expect((await poll(staticData, lmsTrigger, ['enrollment.withdrawn'])).map((item) => item.event_id)).toEqual([event(3).id]);
	expect(filtered.isDone() && unfiltered.isDone()).toBe(true);
	expect(state(staticData)).toMatchObject({ after: event(4).id });

	const quiet = lmsApi().get('/api/v1/events').query({ limit: '100', type: 'enrollment.withdrawn', after: event(4).id }).reply(200, { data: [], has_more: false });
	expect(await poll(staticData, lmsTrigger, ['enrollment.withdrawn'])).toEqual([]);
	expect(quiet.isDone()).toBe(true);
	jest.useRealTimers();
});

test('a state left by version 0.1 of the node (its first poll walked the whole feed, n8n’s poll budget spread the walk): what arrives later is emitted, what came before its first poll is not', async () => {
	const budgeted: INodeType = {
		description: lmsTrigger.getNodeType(2).description,
		async poll(this: IPollFunctions) {
			Object.assign(this, { getPollBudgetMs: () => 0 });
			return await lmsTrigger.getNodeType(2).poll!.call(this);
		},
	};
	const before = new Date(Date.now() - 60_000).toISOString();
	const page = (from: number, count: number, at: string) => Array.from({ length: count }, (_, i) => event(from + i, 'enrollment.completed', at));
	const staticData: IDataObject = {};
	lmsApi().get('/api/v1/events/head').reply(200, { after: event(100).id });
	expect(await poll(staticData, budgeted)).toEqual([]);
	// As 0.1 left it after reading the first of several pages: no fromHead, its first poll's time in since.
	const legacy = state(staticData)!;
	delete legacy.fromHead;
	legacy.since = Date.now() - 30_000;

	const later = new Date(Date.now() + 1_000).toISOString();
	lmsApi()
		.get('/api/v1/events')
		.query({ limit: '100', type: 'enrollment.completed', after: event(100).id })
		.reply(200, { data: [...page(101, 50, before), ...page(151, 2, later)], has_more: false });
	expect((await poll(staticData, budgeted)).map((item) => item.event_id)).toEqual([event(151).id, event(152).id]);
});

test('an empty feed at activation (head null): the next poll reads it from its oldest event, and everything there is new', async () => {
	const staticData: IDataObject = {};
	lmsApi().get('/api/v1/events/head').reply(200, { after: null });
	expect(await poll(staticData)).toEqual([]);
	expect(state(staticData)).toMatchObject({ fromHead: true });
	expect(state(staticData)!.after).toBeUndefined();
	// Stamped an hour before n8n's clock: the position decides, not the clocks.
	const early = new Date(Date.now() - 3_600_000).toISOString();
	lmsApi().get('/api/v1/events').query({ limit: '100', type: 'enrollment.completed' }).reply(200, { data: [event(1, 'enrollment.completed', early)], has_more: false });
	expect((await poll(staticData)).map((item) => item.event_id)).toEqual([event(1).id]);
});

test('an answer that is not the event feed fails the poll with what to check, and keeps the state', async () => {
	const staticData: IDataObject = {};
	lmsApi().get('/api/v1/events/head').reply(200, { data: [], pagination: { page: 1, per_page: 100, total: 0 } });
	await expect(poll(staticData)).rejects.toThrow(/not the LMS event feed's head: check the Base URL/);
	expect(state(staticData)).toBeUndefined();

	lmsApi().get('/api/v1/events/head').reply(200, { after: event(1).id });
	expect(await poll(staticData)).toEqual([]);
	const kept = JSON.stringify(state(staticData));
	lmsApi().get('/api/v1/events').query(true).reply(200, { data: [], pagination: { page: 1, per_page: 100, total: 0 } });
	await expect(poll(staticData)).rejects.toThrow(/not the LMS event feed: check the Base URL/);
	expect(JSON.stringify(state(staticData))).toBe(kept);
});

test('a Course filter that is not a course ID fails before any request, saying what to fix', async () => {
	const staticData: IDataObject = {};
	const parameters = { events: ['enrollment.created'], filters: { course: { __rl: true, mode: 'id', value: 'usr_123' } } };
	await expect(runPoll(lmsTrigger, parameters, { credentials, staticData })).rejects.toThrow(/The Course filter "usr_123" is not an LMS course ID/);
	expect(nock.pendingMocks()).toEqual([]);
});

describe('versions', () => {
	test('a new node is version 2; a workflow saved with version 1 keeps polling the record list with its own parameters and cursor', async () => {
		expect(lmsTrigger.description.defaultVersion).toBe(2);
		expect(lmsTrigger.getNodeType().description.version).toBe(2);

		// A v1 node as saved in a workflow today: typeVersion 1, parameters `event` and `filters`.
		const saved = { typeVersion: 1, parameters: { event: 'newCertificate', filters: { courseId: 'crs_1' } } };
		const list = lmsApi()
			.get('/api/v1/certificates')
			.query({ course_id: 'crs_1', page: '1', per_page: '100' })
			.reply(200, { data: [{ id: 'cert_1' }], pagination: { page: 1, per_page: 100, total: 1 } });
		const staticData: IDataObject = {};
		const { output } = await runPoll(lmsTrigger, saved.parameters, { credentials, staticData, typeVersion: saved.typeVersion });
		expect(output).toBeNull();
		expect(list.isDone()).toBe(true);
		expect((staticData[NODE] as IDataObject).cursor).toMatchObject({ version: 1, tail: ['cert_1'], count: 1 });
	});
});
