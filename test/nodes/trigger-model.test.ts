/**
 * LMS Trigger against a model of an LMS list (served with nock): random bursts, records sharing
 * a millisecond in random id order, records that commit late and land among the last ones read,
 * polls cut short by n8n's poll budget. Whatever happens, every record created after the
 * baseline comes out exactly once, each poll's output is in list order, and a poll with
 * nothing new costs one request.
 */
import nock from 'nock';
import type { IDataObject, INodeParameters, INodeType, IPollFunctions } from 'n8n-workflow';

import { TAIL_SIZE } from '../../nodes/LmsTrigger/v1/cursor';
import { LmsTrigger } from '../../nodes/LmsTrigger/LmsTrigger.node';
import type { LmsTriggerV1 } from '../../nodes/LmsTrigger/v1/LmsTriggerV1';
import { runPoll } from '../helpers/n8n';

const ORIGIN = 'http://lms.model.test';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Version 1's trigger, as n8n runs it for a workflow saved with typeVersion 1. */
const lmsTrigger = new LmsTrigger();
const trigger = lmsTrigger.getNodeType(1) as LmsTriggerV1;
const V1 = { typeVersion: 1 };
const PARAMETERS: INodeParameters = { event: 'newEnrollment' };

/** mulberry32: a small seeded generator, so a failing seed can be replayed. */
function generator(seed: number) {
	let state = seed >>> 0;
	const next = () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)) };
}

interface Row {
	id: string;
	t: number;
}

class ModelList {
	rows: Row[] = [];

	requests = 0;

	constructor(private readonly random: ReturnType<typeof generator>) {}

	add(t: number): Row {
		let id = 'enr_';
		for (let i = 0; i < 16; i++) id += BASE62[this.random.int(0, 61)];
		const row = { id, t };
		this.rows.push(row);
		// The API's order: created_at, then id compared byte by byte.
		this.rows.sort((a, b) => a.t - b.t || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
		return row;
	}

	serve() {
		nock(ORIGIN)
			.persist()
			.get('/api/v1/enrollments')
			.query(true)
			.reply((uri) => {
				this.requests++;
				const query = new URL(uri, ORIGIN).searchParams;
				const page = Number(query.get('page'));
				const perPage = Number(query.get('per_page'));
				const data = this.rows.slice((page - 1) * perPage, page * perPage).map((row) => ({
					id: row.id,
					created_at: new Date(row.t).toISOString(),
				}));
				return [200, { data, pagination: { page, per_page: perPage, total: this.rows.length } }];
			});
	}
}

function budgeted(ms: number): INodeType {
	return {
		description: trigger.description,
		async poll(this: IPollFunctions) {
			Object.assign(this, { getPollBudgetMs: () => ms });
			return await trigger.poll.call(this);
		},
	};
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
// restore(): the interceptor patches Node's http module, which later test files in this worker share.
afterAll(() => {
	nock.enableNetConnect();
	nock.restore();
});

test.each(Array.from({ length: 40 }, (_, i) => i + 1))('scenario %i: nothing missed, nothing repeated', async (seed) => {
	const random = generator(seed);
	const list = new ModelList(random);
	list.serve();
	let now = Date.UTC(2026, 0, 1);
	for (let i = random.int(0, 350); i > 0; i--) list.add((now += random.int(0, 3)));

	const staticData = {};
	const poll = async (nodeType: INodeType | LmsTrigger = lmsTrigger) => {
		const before = list.requests;
		const { output } = await runPoll(nodeType, PARAMETERS, {
			...V1,
			credentials: { baseUrl: ORIGIN, apiKey: 'lms_model' },
			staticData,
		});
		return { ids: output ? output[0].map((item) => item.json.id as string) : [], requests: list.requests - before };
	};

	expect((await poll()).ids).toEqual([]);
	const expected = new Set<string>();
	const emitted: string[] = [];

	for (let round = 0; round < 12; round++) {
		// The guarantee: a record is caught when it lands after the first record of the tail the
		// cursor kept, i.e. when it is stamped later than that record.
		const cursor = (staticData as Record<string, { cursor: { tail: string[]; count: number } }>)['node:LMS Trigger'].cursor;
		const complete = cursor.count === list.rows.length;
		const floor = list.rows.find((row) => row.id === cursor.tail[0])?.t ?? -Infinity;

		const burst = random.next() < 0.3 ? random.int(100, 260) : random.int(0, 6);
		for (let i = 0; i < burst; i++) {
			const kind = random.next();
			const newest = list.rows[list.rows.length - 1]?.t ?? now;
			if (kind < 0.15 && newest > floor) {
				// Same millisecond as the newest record: its random id may sort before it.
				expected.add(list.add(newest).id);
			} else if (kind < 0.25 && Number.isFinite(floor)) {
				// Committed late: stamped before the newest record, among records already read.
				expected.add(list.add(random.int(floor + 1, Math.max(floor + 1, newest))).id);
			} else {
				now = Math.max(now, newest, floor + 1) + random.int(0, 2);
				expected.add(list.add(now).id);
			}
		}

		const small = random.next() < 0.3;
		const result = await poll(small ? budgeted(0) : trigger);
		const positions = result.ids.map((id) => list.rows.findIndex((row) => row.id === id));
		expect(positions).toEqual([...positions].sort((a, b) => a - b));
		if (burst === 0 && complete) expect(result).toEqual({ ids: [], requests: 1 });
		emitted.push(...result.ids);
	}

	// Polls without a budget until the backlog is drained; then a quiet poll costs one request.
	for (let i = 0; i < 3; i++) emitted.push(...(await poll()).ids);
	expect(await poll()).toEqual({ ids: [], requests: 1 });

	expect(new Set(emitted).size).toBe(emitted.length);
	expect(new Set(emitted)).toEqual(expected);
});

describe('records removed from the list (not possible through the API, but an LMS admin can)', () => {
	async function setUp(seed: number, initial: number) {
		const random = generator(seed);
		const list = new ModelList(random);
		list.serve();
		let now = Date.UTC(2026, 1, 1);
		const add = () => list.add((now += 1 + random.int(0, 2)));
		for (let i = 0; i < initial; i++) add();
		const staticData = {};
		const poll = async () => {
			const { output } = await runPoll(lmsTrigger, PARAMETERS, { ...V1, credentials: { baseUrl: ORIGIN, apiKey: 'lms_model' }, staticData });
			return output ? output[0].map((item) => item.json.id as string) : [];
		};
		expect(await poll()).toEqual([]);
		return { list, add, poll };
	}

	test('removing older records moves the tail up the list: the trigger steps back and still finds it', async () => {
		const { list, add, poll } = await setUp(101, 290);
		list.rows.splice(150, 120);
		const fresh = [add().id, add().id, add().id];
		expect(await poll()).toEqual(fresh);
		expect(await poll()).toEqual([]);
	});

	test('removing every record the cursor remembered: what comes after them is new', async () => {
		const { list, add, poll } = await setUp(102, 230);
		list.rows.splice(list.rows.length - TAIL_SIZE, TAIL_SIZE);
		const fresh = [add().id, add().id];
		expect(await poll()).toEqual(fresh);
		expect(await poll()).toEqual([]);
	});
});

test('a cursor it cannot read (another version, damaged static data) starts a new baseline', async () => {
	const list = new ModelList(generator(7));
	list.serve();
	for (let i = 0; i < 120; i++) list.add(Date.UTC(2026, 2, 1) + i);
	for (const damaged of [{ version: 2 }, { version: 1, scope: 'x', tail: 'enr_1', start: 0, count: 0 }, null]) {
		const staticData = { 'node:LMS Trigger': { cursor: damaged } };
		const { output } = await runPoll(lmsTrigger, PARAMETERS, { ...V1, credentials: { baseUrl: ORIGIN, apiKey: 'lms_model' }, staticData });
		expect(output).toBeNull();
		expect(staticData['node:LMS Trigger'].cursor).toMatchObject({ version: 1, count: 120, start: 120 - TAIL_SIZE });
	}
});

// ---------------------------------------------------------------------------------------------
// Version 2: the event feed and Certificate Expiring, against a model LMS.

const DAY = 24 * 3_600_000;
const COURSES = ['crs_a1', 'crs_b2'];
const VALIDITY = [null, 1, 5, 20, 45, 400];

interface ModelEvent {
	id: string;
	type: string;
	created_at: string;
	data: { object: Record<string, unknown> };
}

interface ModelCertificate {
	id: string;
	student_id: string;
	course_id: string;
	enrollment_id: string;
	issued_at: string;
	expires_at: string | null;
	verification_code: string;
}

/**
 * A model LMS: records, the event feed (served in id order, a prefix of it only: events at the
 * end can be held back, as behind an unfinished transaction on PostgreSQL), the certificates
 * list with its expiry window, failures on demand, and a clock (Date is faked: the node reads
 * the time from it).
 */
class ModelLms {
	clock = Date.UTC(2026, 3, 1);

	events: ModelEvent[] = [];

	/** How many events of the feed are served; the rest is held back. */
	visible = 0;

	certificates: ModelCertificate[] = [];

	enrollments: Array<{ id: string; course_id: string; student_id: string; status: string }> = [];

	requests = 0;

	/** Each request fails (HTTP 500) with this probability. */
	failureRate = 0;

	private serial = 0;

	constructor(private readonly random: ReturnType<typeof generator>) {}

	now(): string {
		return new Date(this.clock).toISOString();
	}

	tick(ms: number): void {
		this.clock += ms;
		jest.setSystemTime(this.clock);
	}

	private id(prefix: string): string {
		return `${prefix}_${String(++this.serial).padStart(8, '0')}`;
	}

	private emit(type: string, object: Record<string, unknown>, withEvent: boolean): void {
		if (!withEvent) return;
		this.events.push({ id: `evt_${String(this.events.length + 1).padStart(28, '0')}`, type, created_at: this.now(), data: { object: { ...object } } });
	}

	/** Serves everything written so far, or holds back up to `max` of the newest events. */
	release(max = 0): void {
		this.visible = Math.max(this.visible, this.events.length - this.random.int(0, max));
	}

	user(withEvent = true): void {
		const roles = ['student', 'instructor'];
		this.emit('user.created', { id: this.id('usr'), role: roles[this.random.int(0, 1)], created_at: this.now() }, withEvent);
	}

	enroll(withEvent = true): void {
		const enrollment = { id: this.id('enr'), course_id: COURSES[this.random.int(0, 1)], student_id: this.id('usr'), status: 'active' };
		this.enrollments.push(enrollment);
		this.emit('enrollment.created', enrollment, withEvent);
	}

	/** Progress, completion (with its certificate) or withdrawal of a random active enrollment. */
	change(withEvent = true): void {
		const active = this.enrollments.filter((enrollment) => enrollment.status === 'active');
		if (active.length === 0) return this.enroll(withEvent);
		const enrollment = active[this.random.int(0, active.length - 1)];
		const kind = this.random.next();
		if (kind < 0.3) return this.emit('enrollment.progressed', enrollment, withEvent);
		if (kind < 0.45) {
			enrollment.status = 'withdrawn';
			return this.emit('enrollment.withdrawn', enrollment, withEvent);
		}
		enrollment.status = 'completed';
		this.emit('enrollment.completed', enrollment, withEvent);
		const days = VALIDITY[this.random.int(0, VALIDITY.length - 1)];
		// Validity in whole days plus a random part, so expiry moments spread over the day.
		const expires = days === null ? null : new Date(this.clock + days * DAY + this.random.int(0, DAY)).toISOString();
		const certificate: ModelCertificate = {
			id: this.id('cert'),
			student_id: enrollment.student_id,
			course_id: enrollment.course_id,
			enrollment_id: enrollment.id,
			issued_at: this.now(),
			expires_at: expires,
			verification_code: `V${this.serial}`,
		};
		this.certificates.push(certificate);
		this.emit('certificate.issued', { ...certificate }, withEvent);
	}

	private fail(): boolean {
		return this.random.next() < this.failureRate;
	}

	serve(): void {
		const problem = [500, { type: 'about:blank', title: 'Internal Server Error', status: 500, code: 'internal_error', detail: 'Model failure.' }, { 'Content-Type': 'application/problem+json' }] as const;
		nock(ORIGIN)
			.persist()
			.get('/api/v1/events/head')
			.reply(() => {
				this.requests++;
				if (this.fail()) return [...problem];
				return [200, { after: this.events[this.visible - 1]?.id ?? null }];
			})
			.get('/api/v1/events')
			.query(true)
			.reply((uri) => {
				this.requests++;
				if (this.fail()) return [...problem];
				const query = new URL(uri, ORIGIN).searchParams;
				const served = this.events.slice(0, this.visible);
				let start = 0;
				const after = query.get('after');
				if (after) {
					start = served.findIndex((event) => event.id === after) + 1;
					if (start === 0) return [400, { code: 'invalid_request', status: 400 }];
				}
				const types = query.get('type')?.split(',');
				const limit = Number(query.get('limit') ?? 50);
				const matching = served.slice(start).filter((event) => !types || types.includes(event.type));
				return [200, { data: matching.slice(0, limit), has_more: matching.length > limit }];
			})
			.get('/api/v1/certificates')
			.query(true)
			.reply((uri) => {
				this.requests++;
				if (this.fail()) return [...problem];
				const query = new URL(uri, ORIGIN).searchParams;
				const after = Date.parse(query.get('expires_after')!);
				const before = Date.parse(query.get('expires_before')!);
				const course = query.get('course_id');
				const page = Number(query.get('page'));
				const perPage = Number(query.get('per_page'));
				const matching = this.certificates.filter((certificate) => {
					const expires = certificate.expires_at === null ? NaN : Date.parse(certificate.expires_at);
					return expires > after && expires < before && (!course || certificate.course_id === course);
				});
				const data = matching.slice((page - 1) * perPage, page * perPage);
				return [200, { data, pagination: { page, per_page: perPage, total: matching.length } }];
			});
	}
}

describe('version 2 (event feed, Certificate Expiring) against a model LMS', () => {
	beforeEach(() => {
		// Only Date is faked: nock, n8n-core and the retries keep real timers.
		jest.useFakeTimers({ doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'requestAnimationFrame', 'cancelAnimationFrame', 'requestIdleCallback', 'cancelIdleCallback', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
	});
	afterEach(() => jest.useRealTimers());

	const EVENT_SETS = [
		['certificate.expiring'],
		['certificate.expiring', 'enrollment.completed'],
		['user.created', 'enrollment.created', 'enrollment.completed', 'enrollment.withdrawn', 'certificate.issued', 'certificate.expiring'],
		['enrollment.withdrawn'],
		['certificate.issued', 'user.created'],
	];

	test.each(Array.from({ length: 30 }, (_, i) => i + 1))(
		'scenario %i: every event and every expiring certificate after activation once, none before, none early',
		async (seed) => {
			const random = generator(1000 + seed);
			const lms = new ModelLms(random);
			lms.serve();
			jest.setSystemTime(lms.clock);
			const events = EVENT_SETS[seed % EVENT_SETS.length];
			const days = [0, 3, 30][random.int(0, 2)];
			const courseId = random.next() < 0.3 ? COURSES[0] : undefined;
			const role = random.next() < 0.3 ? 'student' : undefined;
			const course = courseId ? { course: { __rl: true, mode: 'id', value: courseId } } : {};
			const parameters: INodeParameters = { events, daysBefore: days, filters: { ...course, ...(role ? { role } : {}) } };

			// History before activation: some with events, some written by the seed without.
			for (let i = random.int(0, 250); i > 0; i--) {
				const withEvent = random.next() < 0.7;
				const kind = random.next();
				if (kind < 0.2) lms.user(withEvent);
				else if (kind < 0.5) lms.enroll(withEvent);
				else lms.change(withEvent);
				if (random.next() < 0.1) lms.tick(random.int(0, DAY));
			}
			lms.release(3);
			lms.tick(1);

			// n8n keeps static data in memory between polls and saves it only when a poll emits;
			// a restart goes back to the last saved copy.
			let staticData: IDataObject = {};
			let saved = '{}';
			const emitted: Array<{ key: string; at: number; item: IDataObject }> = [];
			const poll = async (nodeType: INodeType | LmsTrigger = lmsTrigger) => {
				const before = lms.requests;
				const { output } = await runPoll(nodeType, parameters, { credentials: { baseUrl: ORIGIN, apiKey: 'lms_model' }, staticData });
				const items = output ? output[0].map((item) => item.json) : [];
				if (items.length > 0) saved = JSON.stringify(staticData);
				for (const item of items) {
					const key = item.event_type === 'certificate.expiring' ? `expiring:${String(item.id)}` : String(item.event_id);
					emitted.push({ key, at: lms.clock, item });
				}
				return { items, requests: lms.requests - before };
			};

			const activation = lms.clock;
			// The feed's head at activation: events served until then are from before, those held
			// back (an unfinished transaction) come after it, as everything written later does.
			const headIndex = lms.visible;
			const first = await poll();
			expect(first.items).toEqual([]);
			// Activation is one request (the feed's head), however long the feed; plus the
			// certificates list when the expiry window must be read.
			if (!events.includes('certificate.expiring')) expect(first.requests).toBe(1);
			// n8n saves static data right after activation (whose first poll is this one).
			saved = JSON.stringify(staticData);
			const emittedBeforeActivation = emitted.length;
			expect(emittedBeforeActivation).toBe(0);

			for (let round = 0; round < 25; round++) {
				const step = random.next();
				const ms = step < 0.4 ? random.int(0, 60_000) : step < 0.8 ? random.int(0, 2 * DAY) : random.int(0, 9 * DAY);
				// An event is held back behind an unfinished transaction for moments, not hours.
				if (ms > 60_000) lms.release(0);
				lms.tick(ms);
				const quiet = random.next() < 0.25;
				if (!quiet) {
					for (let i = random.next() < 0.15 ? random.int(100, 260) : random.int(0, 8); i > 0; i--) {
						const kind = random.next();
						if (kind < 0.15) lms.user();
						else if (kind < 0.4) lms.enroll();
						else lms.change();
					}
				}
				lms.release(quiet ? 0 : 3);

				const failing = random.next() < 0.25;
				lms.failureRate = failing ? 0.4 : 0;
				const budgeted = random.next() < 0.2;
				try {
					await poll(budgeted ? budgetedV2(0) : lmsTrigger);
				} catch (error) {
					expect(failing).toBe(true);
					expect(String((error as Error).message)).toMatch(/HTTP 500/);
				}
				lms.failureRate = 0;
				if (random.next() < 0.15) {
					// n8n restarts: what was not saved is forgotten.
					staticData = JSON.parse(saved);
				}
			}

			// Drain: everything served, polls until nothing is left to read.
			lms.release(0);
			for (let i = 0; i < 4; i++) await poll();
			const last = await poll();
			expect(last.items).toEqual([]);
			// A quiet poll: one request (the feed), unless the expiry schedule needs its daily list read.
			expect(last.requests).toBe(1);

			// What should have come out.
			const chosen = new Set(events);
			const afterHead = lms.events.slice(headIndex);
			const wantedEvents = afterHead.filter((event) => {
				if (!chosen.has(event.type)) return false;
				const object = event.data.object;
				if (event.type === 'user.created') return !role || object.role === role;
				return !courseId || object.course_id === courseId;
			});
			const wantedExpiring = chosen.has('certificate.expiring')
				? lms.certificates.filter((certificate) => {
						if (certificate.expires_at === null || (courseId && certificate.course_id !== courseId)) return false;
						const due = Date.parse(certificate.expires_at) - days * DAY;
						if (due > lms.clock) return false;
						const issuedAfter = afterHead.some((event) => event.data.object.id === certificate.id);
						return issuedAfter || due > activation;
					})
				: [];
			const keys = emitted.map((entry) => entry.key);
			expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
			expect(new Set(keys)).toEqual(new Set([...wantedEvents.map((event) => event.id), ...wantedExpiring.map((certificate) => `expiring:${certificate.id}`)]));

			for (const { at, item } of emitted) {
				if (item.event_type === 'certificate.expiring') {
					// Never early; the item is the certificate.
					expect(Date.parse(String(item.expires_at)) - days * DAY).toBeLessThanOrEqual(at);
					expect(item).toMatchObject({ event_id: null, course_id: expect.any(String), verification_code: expect.any(String) });
				} else {
					const event = lms.events.find((candidate) => candidate.id === item.event_id)!;
					expect(item).toEqual({ ...event.data.object, event_id: event.id, event_type: event.type, event_created_at: event.created_at });
				}
			}
			// Static data stays small: the due list is bounded.
			expect(JSON.stringify(staticData).length).toBeLessThan(200 * 1024);
		},
	);
});

function budgetedV2(ms: number): INodeType {
	const v2 = lmsTrigger.getNodeType(2);
	return {
		description: v2.description,
		async poll(this: IPollFunctions) {
			Object.assign(this, { getPollBudgetMs: () => ms });
			return await v2.poll!.call(this);
		},
	};
}
