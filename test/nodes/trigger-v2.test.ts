/**
 * LMS Trigger version 2 against the real reference server, through n8n-core's PollContext with
 * static data kept between polls as in an active workflow. Changes come through every door the
 * SPEC names (API, CLI `enrollments update`, `users create`, `demo activity`); LMS Instant
 * Trigger receives the same events by webhook, so the items of both can be compared. On
 * PostgreSQL the feed holds back events behind unfinished transactions: each poll waits for the
 * feed to serve everything stored first (feedCaughtUp).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { LmsInstantTrigger } from '../../nodes/LmsInstantTrigger/LmsInstantTrigger.node';
import { LMS_EVENT_TYPES } from '../../nodes/shared/events';
import { LmsTrigger } from '../../nodes/LmsTrigger/LmsTrigger.node';
import { DAY_MS } from '../../nodes/LmsTrigger/v2/expiring';
import { Certificate, Course, Enrollment, Organization } from '../../server/src/db';
import { activityRound } from '../../server/src/demo/activity';
import { EVENT_TYPES } from '../../server/src/events/types';
import { runCli } from '../helpers/cli';
import { runListSearch, runPoll } from '../helpers/n8n';
import { hostWebhookTrigger, type WebhookHost } from '../helpers/n8n-webhooks';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';
import { api, freePair as freePairOf } from '../helpers/webhook-deployment';
import { feedCaughtUp } from '../server/api-fixtures';

const FEED_EVENTS = ['user.created', 'enrollment.created', 'enrollment.completed', 'enrollment.withdrawn', 'certificate.issued'];
const lmsTrigger = new LmsTrigger();

let server: TestServer;
let key: string;
let org: Organization;
let host: WebhookHost;
type Pair = { student_id: string; course_id: string };

beforeAll(async () => {
	server = await startTestServer({
		env: { RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_BASE_MS: '200' },
	});
	key = (await server.createKey('acme', ['manage:webhooks', 'read:users', 'read:courses', 'read:enrollments', 'write:enrollments'])).key;
	org = (await Organization.findOne({ where: { slug: 'acme' } }))!;
}, 120_000);

const freePair = (wanted?: (pair: Pair) => boolean) => freePairOf(server.baseUrl, key, wanted);

afterAll(async () => {
	await host?.close();
	await server?.stop();
});

interface Poller {
	staticData: IDataObject;
	parameters: INodeParameters;
}

const poller = (parameters: INodeParameters): Poller => ({ staticData: {}, parameters });

/** API requests the server has answered: what a node's call cost. */
const apiRequests = () => server.requests({ route: /^\/api\/v1\// });

/** One poll as an active workflow's, once the feed serves everything written; its items and request count. */
async function poll(state: Poller, mode: 'trigger' | 'manual' = 'trigger'): Promise<{ items: IDataObject[]; requests: number }> {
	await feedCaughtUp(server, key, org.id);
	// Counting needs no wait: apiRequests() reads the count after a marker request (helpers/server.ts).
	const before = await apiRequests();
	const { output } = await runPoll(lmsTrigger, state.parameters, {
		credentials: { baseUrl: server.baseUrl, apiKey: key },
		staticData: state.staticData,
		mode,
	});
	return { items: output ? output[0].map((item) => item.json) : [], requests: (await apiRequests()) - before };
}

async function enroll(): Promise<IDataObject> {
	const reply = await api(server.baseUrl, key, '/api/v1/enrollments', { method: 'POST', body: await freePair() });
	expect(reply.status).toBe(201);
	return reply.body;
}

async function patch(id: string, body: IDataObject): Promise<IDataObject> {
	const reply = await api(server.baseUrl, key, `/api/v1/enrollments/${id}`, { method: 'PATCH', body });
	expect(reply.status).toBe(200);
	return reply.body;
}

async function cli(...args: string[]): Promise<string> {
	const result = await runCli(args, { env: { DATABASE_URL: server.databaseUrl } });
	expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
	return result.stdout;
}

/** The organization's feed after `after` (all of it when absent), as the API serves it. */
async function feedAfter(after: string | undefined): Promise<Array<{ id: string; type: string; data: { object: IDataObject } }>> {
	const events = [];
	for (let cursor = after; ; ) {
		const page = await api(server.baseUrl, key, `/api/v1/events?limit=100${cursor ? `&after=${cursor}` : ''}`);
		events.push(...page.body.data);
		if (!page.body.has_more) return events;
		cursor = page.body.data[page.body.data.length - 1].id;
	}
}

async function lastEventId(): Promise<string | undefined> {
	await feedCaughtUp(server, key, org.id);
	return (await feedAfter(undefined)).at(-1)?.id;
}

describe('feed events', () => {
	test('activation emits nothing that happened before; then each change through the API and the CLI once, in order, shaped as LMS Instant Trigger shapes it', async () => {
		host = await hostWebhookTrigger(new LmsInstantTrigger(), { events: FEED_EVENTS }, { baseUrl: server.baseUrl, apiKey: key });
		await host.activate();
		await enroll(); // before activation

		const state = poller({ events: FEED_EVENTS });
		const baseline = await poll(state);
		expect(baseline.items).toEqual([]);
		const mark = await lastEventId();

		const completed = await enroll();
		await patch(String(completed.id), { progress_percent: 40 }); // enrollment.progressed: not chosen
		await patch(String(completed.id), { status: 'completed' });
		const withdrawn = await enroll();
		await cli('enrollments', 'update', String(withdrawn.id), '--status', 'withdrawn');
		await cli('users', 'create', '--org', 'acme', '--email', 'v2.trigger@acme.example', '--name', 'V2 Trigger', '--role', 'instructor');

		const { items } = await poll(state);
		const expected = (await feedAfter(mark)).filter((event) => FEED_EVENTS.includes(event.type));
		expect(items.map((item) => item.event_id)).toEqual(expected.map((event) => event.id));
		expect(items.map((item) => item.event_type)).toEqual([
			'enrollment.created',
			'enrollment.completed',
			'certificate.issued',
			'enrollment.created',
			'enrollment.withdrawn',
			'user.created',
		]);
		expect(items[1]).toMatchObject({ id: completed.id, status: 'completed', progress_percent: 100 });
		expect(items[2]).toMatchObject({ enrollment_id: completed.id, verification_code: expect.any(String) });
		expect(items[5]).toMatchObject({ email: 'v2.trigger@acme.example', role: 'instructor' });

		// The same event, by webhook: the same item, so a workflow can switch triggers.
		const delivered = () => host.runs.flat().map((item) => item.json);
		await waitUntil(() => expected.every((event) => delivered().some((item) => item.event_id === event.id)), { what: 'every event delivered by webhook' });
		for (const item of items) expect(delivered().find((candidate) => candidate.event_id === item.event_id)).toEqual(item);

		const quiet = await poll(state);
		expect(quiet).toEqual({ items: [], requests: 1 });
		await host.deactivate();
	});

	test('one vocabulary: both triggers offer every event type of the LMS under the same names and values, and give the same items for them', async () => {
		const optionsOf = (node: { description: { properties: Array<{ name: string; options?: unknown }> } }) =>
			(node.description.properties.find((p) => p.name === 'events')!.options as Array<{ name: string; value: string }>).map(({ name, value }) => ({ name, value }));
		const v2 = optionsOf(new LmsTrigger().nodeVersions[2] as never).filter((option) => !['certificate.expiring', 'enrollment.due_soon'].includes(option.value));
		expect(optionsOf(new LmsInstantTrigger())).toEqual(v2);
		expect(v2.map((option) => option.value).sort()).toEqual([...EVENT_TYPES].sort());
		expect(v2.find((option) => option.value === 'user.created')!.name).toBe('User Created');

		await host?.close();
		host = await hostWebhookTrigger(new LmsInstantTrigger(), { events: LMS_EVENT_TYPES }, { baseUrl: server.baseUrl, apiKey: key });
		await host.activate();
		const state = poller({ events: LMS_EVENT_TYPES });
		expect((await poll(state)).items).toEqual([]);

		const enrollment = await enroll();
		await patch(String(enrollment.id), { progress_percent: 40 });
		await patch(String(enrollment.id), { status: 'withdrawn' });
		await patch(String(enrollment.id), { status: 'active' });
		const user = JSON.parse(await cli('users', 'create', '--org', 'acme', '--email', 'vocabulary@acme.example', '--name', 'Vocabulary Test', '--role', 'student', '--json')) as { id: string };
		await cli('users', 'update', user.id, '--name', 'Vocabulary Renamed');
		await cli('users', 'deactivate', user.id);
		await cli('users', 'reactivate', user.id);

		const { items } = await poll(state);
		expect(items.map((item) => item.event_type)).toEqual([
			'enrollment.created',
			'enrollment.progressed',
			'enrollment.withdrawn',
			'enrollment.reactivated',
			'user.created',
			'user.updated',
			'user.deactivated',
			'user.reactivated',
		]);
		const delivered = () => host.runs.flat().map((item) => item.json);
		await waitUntil(() => items.every((item) => delivered().some((candidate) => candidate.event_id === item.event_id)), { what: 'every item delivered by webhook' });
		for (const item of items) expect(delivered().find((candidate) => candidate.event_id === item.event_id)).toEqual(item);
		await host.deactivate();
	});

	test('demo activity: exactly the chosen events the feed holds after activation, once', async () => {
		const state = poller({ events: ['enrollment.completed', 'enrollment.withdrawn', 'user.created'] });
		expect((await poll(state)).items).toEqual([]);
		const mark = await lastEventId();
		for (let round = 0; round < 12; round++) await activityRound(org);

		const emitted = [...(await poll(state)).items, ...(await poll(state)).items];
		const expected = (await feedAfter(mark)).filter((event) => ['enrollment.completed', 'enrollment.withdrawn', 'user.created'].includes(event.type));
		expect(emitted.map((item) => item.event_id)).toEqual(expected.map((event) => event.id));
	});

	test('the course filter keeps only that course’s enrollment and certificate events; New User is not filtered by it', async () => {
		const [course] = await Course.findAll({ where: { organizationId: org.id, status: 'published' }, order: [['createdAt', 'ASC']], limit: 1 });
		// Picked From List in the editor: the list shows the course found by a word of its title.
		const word = course.title.split(' ')[0];
		const found = await runListSearch(lmsTrigger, 'searchCourses', { credentials: { baseUrl: server.baseUrl, apiKey: key }, filter: word });
		expect(found.results).toContainEqual({ name: course.title, value: course.id });
		const state = poller({ events: ['enrollment.created', 'user.created'], filters: { course: { __rl: true, mode: 'list', value: course.id, cachedResultName: course.title } } });
		await poll(state);
		const inCourse = await freePair((pair) => pair.course_id === course.id);
		const other = await freePair((pair) => pair.course_id !== course.id);
		const mine = (await api(server.baseUrl, key, '/api/v1/enrollments', { method: 'POST', body: inCourse })).body;
		await api(server.baseUrl, key, '/api/v1/enrollments', { method: 'POST', body: other });
		await cli('users', 'create', '--org', 'acme', '--email', 'v2.filter@acme.example', '--name', 'V2 Filter', '--role', 'student');

		const { items } = await poll(state);
		expect(items.map((item) => [item.event_type, item.id ?? item.email])).toEqual([
			['enrollment.created', mine.id],
			['user.created', expect.stringMatching(/^usr_/)],
		]);
	});

	test('"Fetch Test Event" returns an event of the chosen types and leaves the state alone', async () => {
		const state = poller({ events: ['enrollment.created'] });
		const fresh = await poll(state, 'manual');
		expect(fresh.items).toEqual([expect.objectContaining({ event_type: 'enrollment.created', event_id: expect.stringMatching(/^evt_/) })]);
		expect(state.staticData['node:LMS Trigger'] ?? {}).toEqual({});

		await poll(state);
		const stored = JSON.stringify(state.staticData);
		const created = await enroll();
		expect((await poll(state)).items.map((item) => item.id)).toEqual([created.id]);
		const sample = await poll({ ...state, staticData: JSON.parse(stored) }, 'manual');
		expect(sample.items).toHaveLength(1);
		expect(sample.requests).toBeLessThanOrEqual(2);
	});

	test('a key without read:users cannot watch New User: the first poll after activation fails naming the scope, and nothing moves', async () => {
		const narrow = (await server.createKey('acme', ['read:enrollments'], 'narrow')).key;
		const staticData: IDataObject = {};
		const run = () => runPoll(lmsTrigger, { events: ['user.created'] }, { credentials: { baseUrl: server.baseUrl, apiKey: narrow }, staticData });
		// Activation is one request, for the feed's head, which any key that can read events may ask.
		await run();
		const activated = JSON.stringify(staticData);
		expect(activated).toContain('"fromHead":true');
		await expect(run()).rejects.toThrow(/lacks read:users/);
		expect(JSON.stringify(staticData)).toBe(activated);
	});
});

describe('Certificate Expiring', () => {
	test('a certificate issued with less than N days left triggers at once; one issued earlier triggers N days before it expires; one already inside the window at activation never', async () => {
		// Demo courses give certificates 90, 365 or 730 days (or none); N = 100 puts a 90-day one inside the window.
		const ninety = await Course.findOne({ where: { organizationId: org.id, status: 'published', certificateValidityDays: 90 } });
		expect(ninety).not.toBeNull();
		const days = 100;
		// Enrollments without a certificate (a certificate is one per enrollment).
		const spare = await Enrollment.findAll({ where: { organizationId: org.id, status: 'withdrawn' }, order: [['createdAt', 'ASC']], limit: 2 });
		expect(spare).toHaveLength(2);
		const now = Date.now();
		// Issued before activation, as the demo seed writes history (no event).
		const earlier = async (expiresAt: number) => {
			const enrollment = spare.shift()!;
			return await Certificate.create({
				organizationId: org.id,
				studentId: enrollment.studentId,
				courseId: enrollment.courseId,
				enrollmentId: enrollment.id,
				issuedAt: new Date(now - 300 * DAY_MS),
				expiresAt: new Date(expiresAt),
			});
		};
		const soon = await earlier(now + days * DAY_MS + 4_000);
		const inside = await earlier(now + days * DAY_MS - 60_000);

		const state = poller({ events: ['certificate.expiring'], daysBefore: days });
		const activation = await poll(state);
		expect(activation.items).toEqual([]);
		// The feed, and the list read that schedules the next day.
		expect(activation.requests).toBe(2);

		const pair = await freePair((candidate) => candidate.course_id === ninety!.id);
		const fresh = (await api(server.baseUrl, key, '/api/v1/enrollments', { method: 'POST', body: pair })).body;
		await patch(String(fresh.id), { status: 'completed' });
		const issued = await poll(state);
		expect(issued.items).toEqual([
			expect.objectContaining({ enrollment_id: fresh.id, event_type: 'certificate.expiring', event_id: null, days_left: 90 }),
		]);
		expect(issued.requests).toBe(1);

		expect(await poll(state)).toEqual({ items: [], requests: 1 });
		await new Promise((resolve) => setTimeout(resolve, Math.max(0, now + 4_500 - Date.now())));
		const due = await poll(state);
		expect(due.items.map((item) => item.id)).toEqual([soon.id]);
		expect(due.items[0]).toMatchObject({ event_type: 'certificate.expiring', days_left: days, expires_at: soon.expiresAt!.toISOString() });
		expect(due.requests).toBe(1);
		expect(await poll(state)).toEqual({ items: [], requests: 1 });
		expect(JSON.stringify(state.staticData)).not.toContain(inside.id);
	});

	test('with feed events too, a quiet poll is still one request', async () => {
		const state = poller({ events: ['certificate.expiring', 'enrollment.completed', 'certificate.issued'], daysBefore: 30 });
		await poll(state);
		for (let i = 0; i < 3; i++) expect(await poll(state)).toEqual({ items: [], requests: 1 });
	});
});
