/**
 * LMS Trigger version 2's activation against the real reference server: one request, for the
 * feed's head (GET /api/v1/events/head, SPEC §19), however long the retained feed; then every
 * event after that position is emitted once and none before it, whichever way n8n's clock and
 * the LMS's differ. The server runs in this process, so only the node's clock is moved: Date.now
 * is shifted while the node polls, and the server stamps every event with the true time.
 */
import type { IDataObject } from 'n8n-workflow';

import { LmsTrigger } from '../../nodes/LmsTrigger/LmsTrigger.node';
import { database, Organization } from '../../server/src/db';
import { writeTransaction } from '../../server/src/db/write-transaction';
import { recordEvent } from '../../server/src/events/record';
import { runPoll } from '../helpers/n8n';
import { startTestServer, type TestServer } from '../helpers/server';
import { api, freePairs } from '../helpers/webhook-deployment';
import { feedCaughtUp } from '../server/api-fixtures';

const EVENTS = ['user.created', 'enrollment.created'];
/** More than two pages of the feed (100 a page) before any trigger is activated. */
const HISTORY = 250;
const MINUTES_10 = 10 * 60_000;
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
	await writeTransaction(database(), async (transaction) => {
		for (let i = 0; i < HISTORY; i++) {
			await recordEvent(transaction, { organizationId: org.id, type: 'user.created', object: { id: `usr_history${i}`, role: 'student' } });
		}
	});
}, 120_000);

afterAll(() => server?.stop());

async function enroll(): Promise<void> {
	const reply = await api(server.baseUrl, key, '/api/v1/enrollments', { method: 'POST', body: pairs.shift() });
	expect(reply.status).toBe(201);
}

/** Every event of the feed after `after` (all of it when absent), as the API serves it. */
async function feedAfter(after?: string): Promise<Array<{ id: string; type: string }>> {
	const events = [];
	for (let cursor = after; ; ) {
		const page = await api(server.baseUrl, key, `/api/v1/events?limit=100${cursor ? `&after=${cursor}` : ''}`);
		expect(page.status).toBe(200);
		events.push(...page.body.data);
		if (!page.body.has_more) return events;
		cursor = page.body.data[page.body.data.length - 1].id;
	}
}

/** Requests to the feed and to its head so far, as the server counted them. */
async function feedRequests(): Promise<{ head: number; feed: number }> {
	return { head: await server.requests({ route: '/api/v1/events/head' }), feed: await server.requests({ route: '/api/v1/events' }) };
}

/** One poll of an active workflow, with n8n's clock `skew` ms off the LMS's; its items and feed requests. */
async function poll(staticData: IDataObject, skew: number): Promise<{ items: IDataObject[]; head: number; feed: number }> {
	const before = await feedRequests();
	const trueNow = Date.now.bind(Date);
	const clock = jest.spyOn(Date, 'now').mockImplementation(() => trueNow() + skew);
	let items: IDataObject[];
	try {
		const { output } = await runPoll(lmsTrigger, { events: EVENTS }, { credentials: { baseUrl: server.baseUrl, apiKey: key }, staticData });
		items = output ? output[0].map((item) => item.json) : [];
	} finally {
		clock.mockRestore();
	}
	const after = await feedRequests();
	return { items, head: after.head - before.head, feed: after.feed - before.feed };
}

test.each([
	['10 minutes ahead of', MINUTES_10],
	['10 minutes behind', -MINUTES_10],
])(
	'n8n’s clock %s the LMS’s: activation is one request (the head) on a feed of over 250 events; every event after it once, none before',
	async (_, skew) => {
		// Moments before activation: inside the 10 minutes a clock behind would take for "after".
		await enroll();
		await feedCaughtUp(server, key, org.id);
		const before = await feedAfter();
		expect(before.length).toBeGreaterThan(HISTORY);
		const mark = before[before.length - 1].id;

		const staticData: IDataObject = {};
		const activation = await poll(staticData, skew);
		expect(activation).toEqual({ items: [], head: 1, feed: 0 });

		await enroll();
		await enroll();
		await feedCaughtUp(server, key, org.id);
		const expected = (await feedAfter(mark)).filter((event) => EVENTS.includes(event.type));
		expect(expected).toHaveLength(2);
		const next = await poll(staticData, skew);
		expect(next.items.map((item) => item.event_id)).toEqual(expected.map((event) => event.id));
		expect(next).toMatchObject({ head: 0, feed: 1 });

		// Quiet: one request, nothing again.
		expect(await poll(staticData, skew)).toEqual({ items: [], head: 0, feed: 1 });
	},
);
