/**
 * LMS Users' write operations (SPEC §16, §18) run by n8n-core's WorkflowExecute against the real
 * server: Create in batches of 100 with per-execution Idempotency-Keys, Update, Deactivate and
 * Reactivate, and Create or Update matched by email or external ID, item for item against the API.
 */
import type { IDataObject } from 'n8n-workflow';

import { LmsUsers } from '../../nodes/LmsUsers/LmsUsers.node';
import { Organization, User } from '../../server/src/db';
import { runNode } from '../helpers/n8n';
import { startTestServer, type TestServer } from '../helpers/server';

const rl = (mode: string, value: string) => ({ __rl: true, mode, value });

let server: TestServer;
let apiKey: string;
let organizationId: string;
const as = () => ({ credentials: { baseUrl: server.baseUrl, apiKey } });

async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: IDataObject }> {
	const response = await fetch(`${server.baseUrl}/api/v1${path}`, {
		method: init.method ?? 'GET',
		headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
		body: init.body === undefined ? undefined : JSON.stringify(init.body),
	});
	return { status: response.status, body: (await response.json()) as IDataObject };
}

const logged = (route: string) => server.requests({ route, method: 'POST' });

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	apiKey = (await server.createKey('acme', ['read:users', 'write:users', 'read:enrollments', 'write:enrollments', 'read:courses'], 'n8n users')).key;
	organizationId = (await Organization.findOne({ where: { slug: 'acme' } }))!.id;
}, 120_000);

afterAll(async () => {
	await server?.stop();
});

const create = { operation: 'create', name: '={{ $json.name }}', email: '={{ $json.email }}', role: 'student', additionalFields: { externalId: '={{ $json.hr }}' } };

describe('Create on 150 input items', () => {
	const people = Array.from({ length: 150 }, (_, i) => ({ name: `New Hire ${i}`, email: `hire${i}@n8n-users.example`, hr: `HR-${i}` }));
	let run: Awaited<ReturnType<typeof runNode>>;
	let batches: number;

	beforeAll(async () => {
		const before = await logged('/api/v1/users/batch');
		run = await runNode(new LmsUsers(), create, { ...as(), items: people, executionId: 'exec-hires' });
		batches = (await logged('/api/v1/users/batch')) - before;
	}, 120_000);

	it('take 2 requests and give each person, paired with their item, as the API serves them', async () => {
		expect(run.error).toBeUndefined();
		expect(batches).toBe(2);
		expect(run.items.map((item) => item.pairedItem)).toEqual(people.map((_, i) => ({ item: i })));
		expect(run.items.map((item) => [item.json.email, item.json.external_id, item.json.role])).toEqual(people.map((p) => [p.email, p.hr, 'student']));
		for (const item of run.items.slice(0, 5)) expect(item.json).toEqual((await api(`/users/${String(item.json.id)}`)).body);
	});

	it('run again in the same execution (a retry): the answers are replayed, nobody is created twice', async () => {
		const again = await runNode(new LmsUsers(), create, { ...as(), items: people, executionId: 'exec-hires' });
		expect(again.items).toEqual(run.items);
		expect(await User.count({ where: { organizationId, email: people.map((p) => p.email) } })).toBe(150);
	});

	it('in another execution, Continue On Fail: each existing person is an error item naming the user who has the email', async () => {
		const other = await runNode(new LmsUsers(), create, { ...as(), items: people.slice(0, 2), executionId: 'exec-hires-2', continueOnFail: true });
		expect(other.items.map((item) => String(item.json.error))).toEqual(run.items.slice(0, 2).map((item) => expect.stringContaining(String(item.json.id))));
	});
});

describe('Update, Deactivate, Reactivate', () => {
	it('change the picked user, and only what Update Fields names', async () => {
		const { body: user } = await api('/users', { method: 'POST', body: { name: 'Grace Hopper', email: 'grace@n8n-users.example' } });
		const updated = await runNode(new LmsUsers(), { operation: 'update', user: rl('email', 'GRACE@n8n-users.example'), updateFields: { name: 'Grace B. Hopper', role: 'instructor' } }, as());
		expect(updated.error).toBeUndefined();
		expect(updated.items.map((item) => item.json)).toEqual([(await api(`/users/${String(user.id)}`)).body]);
		expect(updated.items[0].json).toMatchObject({ name: 'Grace B. Hopper', role: 'instructor', email: 'grace@n8n-users.example' });

		const nothing = await runNode(new LmsUsers(), { operation: 'update', user: rl('id', String(user.id)), updateFields: {} }, as());
		expect(nothing.error?.message).toBe('Nothing to update: add at least one field under Update Fields');
	});

	it('Clear External ID removes the external ID (the API then serves null and the ID is free again); with an External ID too, the item fails and nothing changes', async () => {
		const { body: user } = await api('/users', { method: 'POST', body: { name: 'Left HR', email: 'left-hr@n8n-users.example', external_id: 'HR-LEFT-1' } });
		// An empty External ID (an expression that found nothing) still changes nothing.
		const empty = await runNode(new LmsUsers(), { operation: 'update', user: rl('id', String(user.id)), updateFields: { externalId: '', name: 'Left HR' } }, as());
		expect(empty.items[0].json.external_id).toBe('HR-LEFT-1');

		const both = await runNode(new LmsUsers(), { operation: 'update', user: rl('id', String(user.id)), updateFields: { externalId: 'HR-LEFT-2', clearExternalId: true } }, as());
		expect(both.error?.message).toBe('External ID and Clear External ID both set: keep one');
		expect((await api(`/users/${String(user.id)}`)).body.external_id).toBe('HR-LEFT-1');

		const cleared = await runNode(new LmsUsers(), { operation: 'update', user: rl('id', String(user.id)), updateFields: { clearExternalId: true } }, as());
		expect(cleared.error).toBeUndefined();
		expect(cleared.items.map((item) => item.json)).toEqual([(await api(`/users/${String(user.id)}`)).body]);
		expect(cleared.items[0].json.external_id).toBeNull();
		expect((await api('/users?external_id=HR-LEFT-1')).body.data).toEqual([]);
		const { status } = await api('/users', { method: 'POST', body: { name: 'New HR', email: 'new-hr@n8n-users.example', external_id: 'HR-LEFT-1' } });
		expect(status).toBe(201);
	});

	it('Deactivate offboards (active enrollments withdrawn); Reactivate lets them back, the enrollment stays withdrawn', async () => {
		const { body: user } = await api('/users', { method: 'POST', body: { name: 'Leaver', email: 'leaver@n8n-users.example' } });
		const course = ((await api('/courses?per_page=1')).body.data as IDataObject[])[0];
		const { body: enrollment } = await api('/enrollments', { method: 'POST', body: { student_id: user.id, course_id: course.id } });

		const off = await runNode(new LmsUsers(), { operation: 'deactivate', user: rl('id', String(user.id)) }, as());
		expect(off.items.map((item) => item.json)).toEqual([(await api(`/users/${String(user.id)}`)).body]);
		expect(off.items[0].json.status).toBe('deactivated');
		expect((await api(`/enrollments/${String(enrollment.id)}`)).body.status).toBe('withdrawn');

		const on = await runNode(new LmsUsers(), { operation: 'reactivate', user: rl('id', String(user.id)) }, as());
		expect(on.items[0].json).toMatchObject({ status: 'active', deactivated_at: null });
		expect((await api(`/enrollments/${String(enrollment.id)}`)).body.status).toBe('withdrawn');
	});
});

describe('Create or Update', () => {
	const upsert = (matchBy: string, extra: IDataObject = {}) => ({
		operation: 'upsert',
		matchBy,
		email: '={{ $json.email }}',
		name: '={{ $json.name }}',
		externalId: '={{ $json.hr }}',
		...extra,
	});

	it('by email: the existing person is updated, the new one created, in one run of many items', async () => {
		const { body: existing } = await api('/users', { method: 'POST', body: { name: 'Old Name', email: 'known@n8n-users.example', role: 'instructor' } });
		const run = await runNode(new LmsUsers(), upsert('email'), {
			...as(),
			items: [
				{ name: 'New Name', email: 'KNOWN@n8n-users.example' },
				{ name: 'Fresh Person', email: 'fresh@n8n-users.example' },
			],
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ id: existing.id, name: 'New Name', role: 'instructor' });
		expect(run.items[1].json).toMatchObject({ name: 'Fresh Person', role: 'student' });
		for (const item of run.items) expect(item.json).toEqual((await api(`/users/${String(item.json.id)}`)).body);
		expect(await User.count({ where: { organizationId, email: ['known@n8n-users.example', 'fresh@n8n-users.example'] } })).toBe(2);
	});

	it('by external ID: the HR id finds the person even when their email changed; an email held by someone else fails the item', async () => {
		const { body: person } = await api('/users', { method: 'POST', body: { name: 'Renamed', email: 'before@n8n-users.example', external_id: 'EXT-77' } });
		await api('/users', { method: 'POST', body: { name: 'Someone Else', email: 'taken@n8n-users.example' } });
		const run = await runNode(new LmsUsers(), upsert('externalId'), {
			...as(),
			continueOnFail: true,
			items: [
				{ name: 'Renamed', email: 'after@n8n-users.example', hr: 'EXT-77' },
				{ name: 'Newcomer', email: 'taken@n8n-users.example', hr: 'EXT-78' },
				{ name: 'Only HR', email: 'only-hr@n8n-users.example', hr: 'EXT-79' },
			],
		});
		expect(run.items[0].json).toMatchObject({ id: person.id, email: 'after@n8n-users.example', external_id: 'EXT-77' });
		expect(String(run.items[1].json.error)).toContain('taken@n8n-users.example');
		expect(run.items[2].json).toMatchObject({ email: 'only-hr@n8n-users.example', external_id: 'EXT-79' });
	});

	it('by email on 200 items where half exist (a quarter changed): one lookup and one create batch per 100, a PATCH only for who changed', async () => {
		const people = Array.from({ length: 200 }, (_, i) => ({ name: `Roster ${i}`, email: `roster${i}@n8n-users.example` }));
		// Every other person exists already; every fourth of those under an old name.
		for (const [i, person] of people.entries()) {
			if (i % 2 === 0) await api('/users', { method: 'POST', body: { ...person, name: i % 4 === 0 ? `Old ${i}` : person.name } });
		}
		const count = async () => [await server.requests({ route: '/api/v1/users', method: 'GET' }), await logged('/api/v1/users/batch'), await logged('/api/v1/users'), await server.requests({ route: '/api/v1/users/:id', method: 'PATCH' })];
		const before = await count();
		const run = await runNode(new LmsUsers(), upsert('email'), { ...as(), items: people, executionId: 'exec-roster' });
		expect(run.error).toBeUndefined();
		const after = await count();
		// Lookups, create batches, single creates, PATCHes.
		expect(after.map((n, i) => n - before[i])).toEqual([2, 2, 0, 50]);
		expect(run.items.map((item) => [item.json.name, item.json.email, item.pairedItem])).toEqual(people.map((p, i) => [p.name, p.email, { item: i }]));
		for (const item of run.items.filter((_, i) => i % 10 === 0)) expect(item.json).toEqual((await api(`/users/${String(item.json.id)}`)).body);
		expect(await User.count({ where: { organizationId, email: people.map((p) => p.email) } })).toBe(200);
	}, 240_000);

	it('by external ID on 200 items where half exist (a quarter changed): one lookup and one create batch per 100, a PATCH only for who changed', async () => {
		// HR ids as HR systems write them, a comma in some: each is one value of the repeated filter.
		const people = Array.from({ length: 200 }, (_, i) => ({ name: `HR Roster ${i}`, email: `hr-roster${i}@n8n-users.example`, hr: i % 3 === 0 ? `Dept ${i}, Site 2` : `EMP-${i}` }));
		for (const [i, person] of people.entries()) {
			if (i % 2 === 0) await api('/users', { method: 'POST', body: { name: person.name, email: i % 4 === 0 ? `old-${person.email}` : person.email, external_id: person.hr } });
		}
		const count = async () => [await server.requests({ route: '/api/v1/users', method: 'GET' }), await logged('/api/v1/users/batch'), await logged('/api/v1/users'), await server.requests({ route: '/api/v1/users/:id', method: 'PATCH' })];
		const before = await count();
		const run = await runNode(new LmsUsers(), upsert('externalId'), { ...as(), items: people, executionId: 'exec-hr-roster' });
		expect(run.error).toBeUndefined();
		const after = await count();
		// Lookups, create batches, single creates, PATCHes (the 50 whose email HR changed).
		expect(after.map((n, i) => n - before[i])).toEqual([2, 2, 0, 50]);
		expect(run.items.map((item) => [item.json.email, item.json.external_id, item.pairedItem])).toEqual(people.map((p, i) => [p.email, p.hr, { item: i }]));
		for (const item of run.items.filter((_, i) => i % 10 === 0)) expect(item.json).toEqual((await api(`/users/${String(item.json.id)}`)).body);
		expect(await User.count({ where: { organizationId, externalId: people.map((p) => p.hr) } })).toBe(200);
	}, 240_000);

	it('by email, an existing admin is never passed off as updated: the item fails as its PATCH does', async () => {
		const { body: admins } = await api('/users?role=admin&per_page=1');
		const admin = (admins.data as IDataObject[])[0];
		const run = await runNode(new LmsUsers(), upsert('email'), {
			...as(),
			continueOnFail: true,
			items: [
				{ name: admin.name, email: admin.email },
				{ name: 'Beside Admin', email: 'beside-admin@n8n-users.example' },
			],
		});
		expect(String(run.items[0].json.error)).toContain('admin');
		expect(run.items[1].json).toMatchObject({ email: 'beside-admin@n8n-users.example' });
	});

	it('ten executions at once for the same new person (a roster sync started twice): one user, every execution succeeds with it', async () => {
		const names = Array.from({ length: 10 }, (_, i) => `Racing Person ${i}`);
		const runs = await Promise.all(
			names.map((name, i) =>
				runNode(new LmsUsers(), upsert('email'), { ...as(), items: [{ name, email: 'racing@n8n-users.example' }], executionId: `exec-race-${i}` }),
			),
		);
		expect(runs.map((run) => run.error)).toEqual(names.map(() => undefined));
		const ids = new Set(runs.map((run) => run.items[0].json.id));
		expect(ids.size).toBe(1);
		expect(await User.count({ where: { organizationId, emailLower: 'racing@n8n-users.example' } })).toBe(1);
		const { body: user } = await api(`/users/${String([...ids][0])}`);
		expect(names).toContain(user.name);
	});
});

