/**
 * LMS Trigger against the real reference server, through n8n-core's PollContext with workflow
 * static data kept between polls, as in an active workflow. Records are created between polls
 * through the API or straight through the server's models (to control created_at and ids).
 */
import nock from 'nock';
import type { IDataObject, INodeParameters, INodeType, IPollFunctions } from 'n8n-workflow';

import { LmsTrigger } from '../../nodes/LmsTrigger/LmsTrigger.node';
import type { LmsTriggerV1 } from '../../nodes/LmsTrigger/v1/LmsTriggerV1';
import { MAX_ATTEMPTS } from '../../nodes/shared/transport';
import { Certificate, Course, Enrollment, User } from '../../server/src/db';
import { runPoll } from '../helpers/n8n';
import { startTestServer, type TestServer } from '../helpers/server';

/** Workflows saved with version 1 (these tests are v1's): n8n picks the class by typeVersion. */
const lmsTrigger = new LmsTrigger();
const trigger = lmsTrigger.getNodeType(1) as LmsTriggerV1;
const V1 = { typeVersion: 1 };
const NODE_STATE = 'node:LMS Trigger';
const ENROLLMENTS = { event: 'newEnrollment' };

let server: TestServer;
let orgId: string;
let courses: Course[];
let readKey: { id: string; key: string };
let writeKey: string;

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '1000000' } });
	orgId = server.demo!.organizations.find((org) => org.slug === 'acme')!.id;
	courses = await Course.findAll({ where: { organizationId: orgId, status: 'published' }, order: [['createdAt', 'ASC']] });
	readKey = await server.createKey('acme', ['read:users', 'read:enrollments'], 'trigger');
	writeKey = (await server.createKey('acme', ['write:enrollments'], 'enroller')).key;
}, 120_000);

afterAll(async () => {
	nock.cleanAll();
	nock.restore();
	await server?.stop();
});

// ---------------------------------------------------------------------------------------------
// Polling

interface Poller {
	staticData: IDataObject;
	apiKey: string;
}

function poller(): Poller {
	return { staticData: {}, apiKey: readKey.key };
}

async function poll(
	state: Poller,
	parameters: INodeParameters = ENROLLMENTS,
	options: { mode?: 'manual' | 'trigger'; nodeType?: INodeType } = {},
): Promise<string[] | null> {
	const { output } = await runPoll(options.nodeType ?? lmsTrigger, parameters, {
		...V1,
		credentials: { baseUrl: server.baseUrl, apiKey: state.apiKey },
		staticData: state.staticData,
		mode: options.mode ?? 'trigger',
	});
	if (output === null) return null;
	expect(output).toHaveLength(1);
	return output[0].map((item) => item.json.id as string);
}

/** A poll that must succeed, with the number of API requests it made (apiRequests() reads the count after a marker request: no wait). */
async function measuredPoll(state: Poller, parameters: INodeParameters = ENROLLMENTS) {
	const before = await apiRequests();
	const ids = await poll(state, parameters);
	return { ids, requests: (await apiRequests()) - before };
}

function cursorOf(state: Poller): unknown {
	const cursor = (state.staticData[NODE_STATE] as IDataObject | undefined)?.cursor;
	return cursor === undefined ? undefined : JSON.parse(JSON.stringify(cursor));
}

/** The same trigger with n8n's poll budget (n8n 2.38+) set to `ms`. */
function withPollBudget(ms: number): INodeType {
	return {
		description: trigger.description,
		async poll(this: IPollFunctions) {
			Object.assign(this, { getPollBudgetMs: () => ms });
			return await trigger.poll.call(this);
		},
	};
}

/** API requests the server has answered: what a node's call cost. */
const apiRequests = () => server.requests({ route: /^\/api\/v1\// });

// ---------------------------------------------------------------------------------------------
// Records

let studentSerial = 0;

async function newUsers(count: number, role: User['role'] = 'student', createdAt?: Date): Promise<User[]> {
	return await User.bulkCreate(
		Array.from({ length: count }, () => {
			const n = ++studentSerial;
			return {
				organizationId: orgId,
				name: `Trigger ${role} ${n}`,
				email: `trigger.${role}.${n}@acme.example`,
				emailLower: `trigger.${role}.${n}@acme.example`,
				role,
				passwordHash: null,
				...(createdAt ? { createdAt, updatedAt: createdAt } : {}),
			};
		}),
	);
}

/** `count` enrollments of new students, created one by one (so created_at follows creation). */
async function enrollOneByOne(count: number, course = courses[0]): Promise<Enrollment[]> {
	const rows: Enrollment[] = [];
	for (const student of await newUsers(count)) {
		rows.push(await Enrollment.create({ organizationId: orgId, studentId: student.id, courseId: course.id, completedAt: null }));
	}
	return rows;
}

/**
 * `count` enrollments in one insert, with the given created_at times and ids (random if
 * absent). Returns once the latest of those times has passed, so the next records created
 * "now" come after them.
 */
async function enrollAt(times: Date[], ids: Array<string | undefined> = []): Promise<Enrollment[]> {
	const students = await newUsers(times.length);
	const rows = await Enrollment.bulkCreate(
		times.map((createdAt, i) => ({
			...(ids[i] ? { id: ids[i] } : {}),
			organizationId: orgId,
			studentId: students[i].id,
			courseId: courses[i % courses.length].id,
			completedAt: null,
			createdAt,
			updatedAt: createdAt,
		})),
	);
	const latest = Math.max(...times.map((time) => time.getTime()));
	await new Promise((resolve) => setTimeout(resolve, Math.max(0, latest - Date.now() + 2)));
	return rows;
}

/** The API's order: created_at, then id (SQLite compares ids byte by byte). */
function inListOrder(rows: Array<{ id: string; createdAt: Date }>): string[] {
	return [...rows]
		.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
		.map((row) => row.id);
}

async function enrollThroughApi(studentId: string, courseId: string): Promise<{ id: string; created_at: string }> {
	const response = await fetch(`${server.baseUrl}/api/v1/enrollments`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${writeKey}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ student_id: studentId, course_id: courseId }),
	});
	expect(response.status).toBe(201);
	return (await response.json()) as { id: string; created_at: string };
}

// ---------------------------------------------------------------------------------------------

describe('LMS Trigger: New Enrollment', () => {
	test('the first poll records a baseline and emits none of the existing enrollments', async () => {
		expect(await Enrollment.count({ where: { organizationId: orgId } })).toBeGreaterThanOrEqual(200);
		const state = poller();
		const { ids, requests } = await measuredPoll(state);
		expect(ids).toBeNull();
		// Page 1 for the total, then the last page (and the one before it when needed).
		expect(requests).toBeGreaterThanOrEqual(2);
		expect(requests).toBeLessThanOrEqual(3);
		expect(cursorOf(state)).toMatchObject({ version: 1, count: await Enrollment.count({ where: { organizationId: orgId } }) });
		expect(await poll(state)).toBeNull();
	});

	test('a record that shows up a moment after a poll, stamped before it, is not lost', async () => {
		const state = poller();
		await poll(state);
		const [fresh] = await enrollOneByOne(1);
		expect(await poll(state)).toEqual([fresh.id]);

		// Stamped 2 s before the record the cursor sits on (a slow insert committing late).
		const [late] = await enrollAt([new Date(fresh.createdAt.getTime() - 2_000)]);
		expect(await poll(state)).toEqual([late.id]);
		expect(await poll(state)).toBeNull();
	});

	test('3 enrollments created through the API come out exactly, in order, once', async () => {
		const state = poller();
		await poll(state);
		const students = await newUsers(3);
		const created = [];
		for (const student of students) created.push(await enrollThroughApi(student.id, courses[1].id));

		const { ids, requests } = await measuredPoll(state);
		expect(ids).toEqual(inListOrder(created.map((e) => ({ id: e.id, createdAt: new Date(e.created_at) }))));
		expect(requests).toBeLessThanOrEqual(2);
		expect(await poll(state)).toBeNull();
	});

	test('a quiet poll makes exactly one request', async () => {
		const state = poller();
		await poll(state);
		await enrollOneByOne(2);
		expect(await poll(state)).toHaveLength(2);

		for (let i = 0; i < 3; i++) {
			const { ids, requests } = await measuredPoll(state);
			expect(ids).toBeNull();
			expect(requests).toBe(1);
		}
	});

	test('250 enrollments between two polls: all 250, in order, no duplicates, then quiet', async () => {
		const state = poller();
		await poll(state);
		// Three per millisecond, so several share a created_at and pages split those groups.
		const t0 = Date.now() + 1;
		const created = await enrollAt(Array.from({ length: 250 }, (_, i) => new Date(t0 + Math.floor(i / 3))));

		const { ids, requests } = await measuredPoll(state);
		expect(ids).toHaveLength(250);
		expect(new Set(ids).size).toBe(250);
		expect(ids).toEqual(inListOrder(created));
		// The page holding the cursor, then the pages after it up to the last one `total` names.
		expect(requests).toBeLessThanOrEqual(4);

		const quiet = await measuredPoll(state);
		expect(quiet).toEqual({ ids: null, requests: 1 });
	});

	test('records created in the millisecond of the cursor are caught, whichever way their ids sort', async () => {
		const state = poller();
		await poll(state);
		const t = new Date(Date.now() + 5);
		const firstWave = await enrollAt([t, t, t]);
		expect(await poll(state)).toEqual(inListOrder(firstWave));

		// Same millisecond again: one id sorts before every existing one, one after, one random.
		const secondWave = await enrollAt([t, t, t], ['enr_0000000000000000', 'enr_zzzzzzzzzzzzzzzz', undefined]);
		expect(await poll(state)).toEqual(inListOrder(secondWave));
		expect(await poll(state)).toBeNull();
	});

	test('a 429 that outlasts the retries fails the poll without moving the cursor; the next poll emits everything', async () => {
		const state = poller();
		await poll(state);
		const created = await enrollAt(Array.from({ length: 150 }, (_, i) => new Date(Date.now() + 1 + i)));
		const cursorBefore = cursorOf(state);

		// The last page answers 429 to every attempt; the pages before it succeed.
		const total = await Enrollment.count({ where: { organizationId: orgId } });
		const lastPage = String(Math.ceil(total / 100));
		const limited = nock(server.baseUrl, { allowUnmocked: true })
			.get('/api/v1/enrollments')
			.query((query) => query.page === lastPage)
			.times(MAX_ATTEMPTS)
			.reply(
				429,
				{ type: 'about:blank', title: 'Too Many Requests', status: 429, code: 'rate_limited', detail: 'Slow down.' },
				{ 'Content-Type': 'application/problem+json', 'Retry-After': '0' },
			);
		try {
			await expect(poll(state)).rejects.toThrow(/too many requests/);
			expect(limited.isDone()).toBe(true);
		} finally {
			nock.cleanAll();
		}
		expect(cursorOf(state)).toEqual(cursorBefore);

		expect(await poll(state)).toEqual(inListOrder(created));
		expect(await poll(state)).toBeNull();
	});

	test('a rotated key fails the poll without moving the cursor; with the new key the next poll emits everything', async () => {
		const key = await server.createKey('acme', ['read:enrollments'], 'to rotate');
		const state: Poller = { staticData: {}, apiKey: key.key };
		await poll(state);
		const created = await enrollOneByOne(4);
		const cursorBefore = cursorOf(state);

		const rotated = await server.rotateKey(key.id);
		await expect(poll(state)).rejects.toThrow(/rotated: paste the new key/);
		expect(cursorOf(state)).toEqual(cursorBefore);

		const more = await enrollOneByOne(1);
		state.apiKey = rotated.key;
		expect(await poll(state)).toEqual(inListOrder([...created, ...more]));
	});

	test('"Fetch Test Event" returns the most recent enrollment and leaves the cursor alone', async () => {
		const state = poller();
		await poll(state);
		const created = await enrollOneByOne(3);
		const cursorBefore = cursorOf(state);

		const before = await apiRequests();
		const sampled = await poll(state, ENROLLMENTS, { mode: 'manual' });
			expect(sampled).toEqual(inListOrder(created).slice(-1));
		expect((await apiRequests()) - before).toBeLessThanOrEqual(2);
		expect(cursorOf(state)).toEqual(cursorBefore);

		expect(await poll(state)).toEqual(inListOrder(created));
	});

	test('"Fetch Test Event" works before the workflow was ever activated', async () => {
		const state = poller();
		const sampled = await poll(state, ENROLLMENTS, { mode: 'manual' });
		const [newest] = await Enrollment.findAll({ where: { organizationId: orgId }, order: [['createdAt', 'DESC'], ['id', 'DESC']], limit: 1 });
		expect(sampled).toEqual([newest.id]);
		expect(state.staticData).toEqual({});
	});

	test('with a small poll budget, each poll emits the oldest pages and the next carries on: nothing lost or repeated', async () => {
		const state = poller();
		const budgeted = withPollBudget(0);
		await poll(state, ENROLLMENTS, { nodeType: budgeted });
		const created = await enrollAt(Array.from({ length: 330 }, (_, i) => new Date(Date.now() + 1 + Math.floor(i / 2))));

		const emitted: string[] = [];
		let polls = 0;
		while (emitted.length < created.length && polls < 10) {
			polls++;
			const before = await apiRequests();
			emitted.push(...((await poll(state, ENROLLMENTS, { nodeType: budgeted })) ?? []));
					expect((await apiRequests()) - before).toBeLessThanOrEqual(2);
		}
		expect(polls).toBeGreaterThan(1);
		expect(emitted).toEqual(inListOrder(created));
		expect(await poll(state, ENROLLMENTS, { nodeType: budgeted })).toBeNull();
	});

	test('the course filter only emits enrollments in that course', async () => {
		const state = poller();
		const filtered = { event: 'newEnrollment', filters: { courseId: courses[2].id } };
		await poll(state, filtered);
		const inCourse = await enrollOneByOne(2, courses[2]);
		await enrollOneByOne(2, courses[3]);
		expect(await poll(state, filtered)).toEqual(inListOrder(inCourse));
	});
});

describe('LMS Trigger: New User and New Certificate', () => {
	test('New User with a role filter emits only new users with that role', async () => {
		const state = poller();
		const instructors = { event: 'newUser', filters: { role: 'instructor' } };
		expect(await poll(state, instructors)).toBeNull();
		await newUsers(2, 'student');
		const hired = [...(await newUsers(1, 'instructor')), ...(await newUsers(1, 'instructor'))];
		await newUsers(1, 'admin');

		const { ids, requests } = await measuredPoll(state, instructors);
		expect(ids).toEqual(inListOrder(hired));
		expect(requests).toBe(1);
		expect(await poll(state, instructors)).toBeNull();
	});

	test('New Certificate with a course filter emits only certificates of that course', async () => {
		const state = poller();
		const course = courses[4];
		const certificatesOf = { event: 'newCertificate', filters: { courseId: course.id } };
		expect(await poll(state, certificatesOf)).toBeNull();

		const certify = async (enrollment: Enrollment) =>
			await Certificate.create({
				organizationId: orgId,
				studentId: enrollment.studentId,
				courseId: enrollment.courseId,
				enrollmentId: enrollment.id,
				issuedAt: new Date(),
				expiresAt: null,
			});
		const earned = [];
		for (const enrollment of await enrollOneByOne(2, course)) earned.push(await certify(enrollment));
		for (const enrollment of await enrollOneByOne(1, courses[5])) await certify(enrollment);

		expect(await poll(state, certificatesOf)).toEqual(inListOrder(earned));
		expect(await poll(state, certificatesOf)).toBeNull();
	});

	test('switching the event or the filter starts a new baseline instead of replaying', async () => {
		const state = poller();
		await poll(state, ENROLLMENTS);
		await enrollOneByOne(2);

		// Existing certificates are not "new" for a trigger that was watching enrollments.
		expect(await poll(state, { event: 'newCertificate' })).toBeNull();
		expect(await poll(state, { event: 'newEnrollment', filters: { courseId: courses[0].id } })).toBeNull();
		const [next] = await enrollOneByOne(1);
		expect(await poll(state, { event: 'newEnrollment', filters: { courseId: courses[0].id } })).toEqual([next.id]);
	});
});
