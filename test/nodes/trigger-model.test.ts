/**
 * LMS Trigger against a model of an LMS list (served with nock): random bursts, records sharing
 * a millisecond in random id order, records that commit late and land among the last ones read,
 * polls cut short by n8n's poll budget. Whatever happens, every record created after the
 * baseline comes out exactly once, each poll's output is in list order, and a poll with
 * nothing new costs one request.
 */
import nock from 'nock';
import type { INodeParameters, INodeType, IPollFunctions } from 'n8n-workflow';

import { TAIL_SIZE } from '../../nodes/LmsTrigger/v1/cursor';
import { LmsTrigger } from '../../nodes/LmsTrigger/LmsTrigger.node';
import { LmsTriggerV1 } from '../../nodes/LmsTrigger/v1/LmsTriggerV1.node';
import { runPoll } from '../helpers/n8n';

const ORIGIN = 'http://lms.model.test';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Version 1's trigger, as n8n runs it for a workflow saved with typeVersion 1. */
const lmsTrigger = new LmsTrigger();
const trigger = new LmsTriggerV1();
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
