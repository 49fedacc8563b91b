/**
 * LMS Groups (SPEC §20) run by n8n-core's WorkflowExecute against the real server, item for item
 * against the API: Create (and If Name Exists), Get by every picker mode, Get Many's filters, Update,
 * Delete, Add / Remove Members (one user per item in one request per group, or a list of IDs; an
 * unknown user fails its own item only), Get Members, Assign Course (the background enrollment,
 * If Already Assigned) and Unassign Course (by group and course, or by ID); LMS Users and LMS
 * Enrollments Get Many filtered by group; the Group picker's From List.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { LmsEnrollments } from '../../nodes/LmsEnrollments/LmsEnrollments.node';
import { LmsGroups } from '../../nodes/LmsGroups/LmsGroups.node';
import { LmsUsers } from '../../nodes/LmsUsers/LmsUsers.node';
import { runListSearch, runNode } from '../helpers/n8n';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';

const rl = (mode: string, value: string) => ({ __rl: true, mode, value });

let server: TestServer;
let apiKey: string;
const as = () => ({ credentials: { baseUrl: server.baseUrl, apiKey } });

async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: IDataObject }> {
	const response = await fetch(`${server.baseUrl}/api/v1${path}`, {
		method: init.method ?? 'GET',
		headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
		body: init.body === undefined ? undefined : JSON.stringify(init.body),
	});
	return { status: response.status, body: response.status === 204 ? {} : ((await response.json()) as IDataObject) };
}

const list = async (path: string) => (await api(path)).body.data as IDataObject[];

async function person(name: string, role = 'student'): Promise<IDataObject> {
	return (await api('/users', { method: 'POST', body: { name, email: `${name.toLowerCase().replace(/\W+/g, '.')}@n8n-groups.example`, role } })).body;
}

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	apiKey = (await server.createKey('acme', ['read:users', 'write:users', 'read:enrollments', 'write:enrollments', 'read:courses'], 'n8n groups')).key;
}, 120_000);

afterAll(async () => {
	await server?.stop();
});

describe('a group: Create, Get, Get Many, Update, Delete', () => {
	it('Create makes the group as the API serves it; the same name again fails the item, or with If Name Exists returns that group', async () => {
		const created = await runNode(new LmsGroups(), { operation: 'create', name: 'Sales', additionalFields: { description: 'The sales team', externalId: 'okta-sales' } }, as());
		expect(created.error).toBeUndefined();
		expect(created.items.map((item) => item.json)).toEqual([(await api(`/groups/${String(created.items[0].json.id)}`)).body]);
		expect(created.items[0].json).toMatchObject({ name: 'Sales', description: 'The sales team', external_id: 'okta-sales', member_count: 0 });

		const again = await runNode(new LmsGroups(), { operation: 'create', name: 'SALES' }, as());
		expect(again.error?.message).toContain(`A group named SALES already exists (${String(created.items[0].json.id)})`);
		const existing = await runNode(new LmsGroups(), { operation: 'create', name: 'sales', ifExists: 'returnExisting' }, as());
		expect(existing.items.map((item) => item.json)).toEqual(created.items.map((item) => item.json));
	});

	it('Get finds the group From List / By ID, By Name (any case) and By External ID; an unknown name says so', async () => {
		const [sales] = await list('/groups?name=Sales');
		for (const group of [rl('list', String(sales.id)), rl('id', String(sales.id)), rl('name', 'sALES'), rl('externalId', 'okta-sales')]) {
			const got = await runNode(new LmsGroups(), { operation: 'get', group }, as());
			expect(got.items.map((item) => item.json)).toEqual([sales]);
		}
		const unknown = await runNode(new LmsGroups(), { operation: 'get', group: rl('name', 'Nobody Here') }, as());
		expect(unknown.error?.message).toBe('No LMS group is named "Nobody Here"');
		// By ID is checked by the editor (n8n refuses to run a workflow with it wrong); From List or an expression reach the node.
		const badId = await runNode(new LmsGroups(), { operation: 'get', group: rl('list', 'usr_123') }, as());
		expect(badId.error?.message).toBe('Group "usr_123" is not an LMS group ID');
	});

	it('Get Many filters by name, external ID, search and member, with Return All and Limit as the API pages them', async () => {
		for (const name of ['Wholesale', 'Support', 'Site Berlin']) await api('/groups', { method: 'POST', body: { name } });
		const all = await runNode(new LmsGroups(), { operation: 'getAll', returnAll: true }, as());
		expect(all.items.map((item) => item.json)).toEqual(await list('/groups?per_page=100'));
		const limited = await runNode(new LmsGroups(), { operation: 'getAll', returnAll: false, limit: 2 }, as());
		expect(limited.items).toHaveLength(2);

		const names = async (filters: INodeParameters) =>
			(await runNode(new LmsGroups(), { operation: 'getAll', returnAll: true, filters }, as())).items.map((item) => item.json.name).sort();
		expect(await names({ search: 'sale' })).toEqual(['Sales', 'Wholesale']);
		expect(await names({ name: 'support' })).toEqual(['Support']);
		expect(await names({ externalId: 'okta-sales' })).toEqual(['Sales']);
		const member = await person('Filter Member');
		const [support] = await list('/groups?name=Support');
		await api(`/groups/${String(support.id)}/members`, { method: 'POST', body: { user_ids: [member.id] } });
		expect(await names({ member: rl('email', String(member.email)) })).toEqual(['Support']);
	});

	it('Update changes only what Update Fields names; nothing to change fails with a sentence', async () => {
		const updated = await runNode(new LmsGroups(), { operation: 'update', group: rl('name', 'Site Berlin'), updateFields: { name: 'Site Berlin-Mitte', description: 'Office' } }, as());
		expect(updated.error).toBeUndefined();
		expect(updated.items[0].json).toEqual((await api(`/groups/${String(updated.items[0].json.id)}`)).body);
		expect(updated.items[0].json).toMatchObject({ name: 'Site Berlin-Mitte', description: 'Office', external_id: null });
		const nothing = await runNode(new LmsGroups(), { operation: 'update', group: rl('name', 'Site Berlin-Mitte'), updateFields: {} }, as());
		expect(nothing.error?.message).toBe('Nothing to update: add at least one field under Update Fields');
	});

	it('Update with Description and External ID added but left empty clears them; the name stays', async () => {
		const made = await runNode(new LmsGroups(), { operation: 'create', name: 'Night Shift', additionalFields: { description: 'Nights', externalId: 'okta-nights' } }, as());
		const id = String(made.items[0].json.id);
		const cleared = await runNode(new LmsGroups(), { operation: 'update', group: rl('id', id), updateFields: { description: '', externalId: ' ' } }, as());
		expect(cleared.error).toBeUndefined();
		expect(cleared.items.map((item) => item.json)).toEqual([(await api(`/groups/${id}`)).body]);
		expect(cleared.items[0].json).toMatchObject({ name: 'Night Shift', description: null, external_id: null });
		expect((await api(`/groups/${id}`, { method: 'DELETE' })).status).toBe(204);
	});

	it('Delete removes the group and says which; a second Delete is a 404, an error item with Continue On Fail', async () => {
		const [berlin] = await list('/groups?name=Site%20Berlin-Mitte');
		const deleted = await runNode(new LmsGroups(), { operation: 'delete', group: rl('id', String(berlin.id)) }, as());
		expect(deleted.items.map((item) => item.json)).toEqual([{ id: berlin.id, deleted: true }]);
		expect((await api(`/groups/${String(berlin.id)}`)).status).toBe(404);
		const again = await runNode(new LmsGroups(), { operation: 'delete', group: rl('id', String(berlin.id)) }, { ...as(), continueOnFail: true });
		expect(again.items).toHaveLength(1);
		expect(again.items[0].json.error).toEqual(expect.any(String));
		expect(again.items[0].pairedItem).toEqual({ item: 0 });
	});
});

describe('members', () => {
	let group: IDataObject;
	const people: IDataObject[] = [];

	beforeAll(async () => {
		group = (await api('/groups', { method: 'POST', body: { name: 'Engineering' } })).body;
		for (let i = 0; i < 5; i++) people.push(await person(`Engineer ${i}`, i === 4 ? 'instructor' : 'student'));
	});

	it('Add Members, one user per item: the items of one group go in one request, each item gets its share of the answer', async () => {
		await api(`/groups/${String(group.id)}/members`, { method: 'POST', body: { user_ids: [people[0].id] } });
		const before = await server.requests({ route: '/api/v1/groups/:id/members', method: 'POST' });
		const run = await runNode(
			new LmsGroups(),
			{ operation: 'addMembers', group: rl('name', 'Engineering'), user: '={{ $json.user }}' },
			{ ...as(), items: [people[0], people[1], people[2], people[4]].map((p) => ({ user: p.id })) },
		);
		expect(run.error).toBeUndefined();
		expect(await server.requests({ route: '/api/v1/groups/:id/members', method: 'POST' })).toBe(before + 1);
		expect(run.items.map((item) => item.json)).toEqual([
			{ group_id: group.id, added: [], unchanged: [people[0].id] },
			{ group_id: group.id, added: [people[1].id], unchanged: [] },
			{ group_id: group.id, added: [people[2].id], unchanged: [] },
			{ group_id: group.id, added: [people[4].id], unchanged: [] },
		]);
		expect(run.items.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3].map((item) => ({ item })));
		expect((await list(`/groups/${String(group.id)}/members`)).map((u) => u.id).sort()).toEqual([people[0].id, people[1].id, people[2].id, people[4].id].sort());
	});

	it('an unknown user fails its own item (Continue On Fail: an error item); the others are added', async () => {
		const run = await runNode(
			new LmsGroups(),
			{ operation: 'addMembers', group: rl('id', String(group.id)), user: '={{ $json.user }}' },
			{ ...as(), items: [{ user: 'usr_doesnotexist1' }, { user: people[3].id }], continueOnFail: true },
		);
		expect(run.items[0].json.error).toBe("User usr_doesnotexist1 is not a user of the key's organization");
		expect(run.items[1].json).toEqual({ group_id: group.id, added: [people[3].id], unchanged: [] });
		const stopped = await runNode(new LmsGroups(), { operation: 'addMembers', group: rl('id', String(group.id)), user: rl('id', 'usr_doesnotexist1') }, as());
		expect(stopped.error?.message).toContain("usr_doesnotexist1 is not a user of the key's organization");
	});

	it('Get Members lists the members as the API does; LMS Users Get Many filters by the group', async () => {
		const members = await runNode(new LmsGroups(), { operation: 'getMembers', group: rl('list', String(group.id)), returnAll: true }, as());
		expect(members.items.map((item) => item.json)).toEqual(await list(`/groups/${String(group.id)}/members?per_page=100`));
		expect(members.items).toHaveLength(5);
		const two = await runNode(new LmsGroups(), { operation: 'getMembers', group: rl('list', String(group.id)), returnAll: false, limit: 2 }, as());
		expect(two.items).toHaveLength(2);

		const users = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: true, filters: { group: rl('name', 'engineering'), role: 'student' } }, as());
		expect(users.error).toBeUndefined();
		expect(users.items.map((item) => item.json)).toEqual(await list(`/users?group_id=${String(group.id)}&role=student&per_page=100`));
		expect(users.items).toHaveLength(4);
	});

	it('Remove Members with a list of IDs: one item, the API answer; those not in the group are unchanged', async () => {
		const run = await runNode(
			new LmsGroups(),
			{ operation: 'removeMembers', group: rl('id', String(group.id)), usersFrom: 'list', userIds: `${String(people[3].id)}, ${String(people[4].id)}` },
			as(),
		);
		expect(run.items.map((item) => item.json)).toEqual([{ group_id: group.id, removed: [people[3].id, people[4].id], unchanged: [] }]);
		const again = await runNode(new LmsGroups(), { operation: 'removeMembers', group: rl('id', String(group.id)), usersFrom: 'list', userIds: '={{ $json.ids }}' }, { ...as(), items: [{ ids: [people[3].id] }] });
		expect(again.items.map((item) => item.json)).toEqual([{ group_id: group.id, removed: [], unchanged: [people[3].id] }]);
		const bad = await runNode(new LmsGroups(), { operation: 'removeMembers', group: rl('id', String(group.id)), usersFrom: 'list', userIds: 'crs_abc' }, as());
		expect(bad.error?.message).toBe('User IDs "crs_abc" is not an LMS user ID');
	});

	it('Add Members with a list of IDs adds them all in one request', async () => {
		const run = await runNode(new LmsGroups(), { operation: 'addMembers', group: rl('id', String(group.id)), usersFrom: 'list', userIds: `${String(people[3].id)},${String(people[0].id)}` }, as());
		expect(run.items.map((item) => item.json)).toEqual([{ group_id: group.id, added: [people[3].id], unchanged: [people[0].id] }]);
	});
});

describe('assignments', () => {
	let group: IDataObject;
	let course: IDataObject;
	const students: IDataObject[] = [];

	beforeAll(async () => {
		group = (await api('/groups', { method: 'POST', body: { name: 'Compliance Cohort' } })).body;
		course = (await list('/courses?per_page=100')).find((c) => c.status === 'published')!;
		for (let i = 0; i < 3; i++) students.push(await person(`Cohort Student ${i}`));
		await api(`/groups/${String(group.id)}/members`, { method: 'POST', body: { user_ids: students.map((s) => s.id) } });
	});

	it('Assign Course: the assignment as the API serves it; every student member gets an enrollment due 30 days later', async () => {
		const run = await runNode(
			new LmsGroups(),
			{ operation: 'assignCourse', group: rl('name', 'Compliance Cohort'), course: rl('id', String(course.id)), onRemoval: 'withdraw', additionalFields: { dueInDays: 30 } },
			as(),
		);
		expect(run.error).toBeUndefined();
		const assignment = run.items[0].json;
		expect(assignment).toMatchObject({ group_id: group.id, course_id: course.id, due_in_days: 30, on_removal: 'withdraw' });
		expect(assignment.id).toMatch(/^asg_/);
		await waitUntil(async () => (await api(`/assignments/${String(assignment.id)}`)).body.applied_at, { what: 'applied_at' });
		const enrollments = await runNode(new LmsEnrollments(), { operation: 'getAll', returnAll: true, filters: { group: rl('id', String(group.id)), course: rl('id', String(course.id)) } }, as());
		expect(enrollments.items.map((item) => item.json)).toEqual(await list(`/enrollments?group_id=${String(group.id)}&course_id=${String(course.id)}&per_page=100`));
		expect(enrollments.items.map((item) => item.json.student_id).sort()).toEqual(students.map((s) => s.id).sort());
		const created = Date.parse(String(assignment.created_at));
		for (const item of enrollments.items) {
			expect(item.json.assignment_id).toBe(assignment.id);
			expect(Date.parse(String(item.json.due_at)) - created).toBe(30 * 24 * 3600 * 1000);
		}
	});

	it('the same course again fails the item, or with If Already Assigned returns the existing assignment', async () => {
		const params = { operation: 'assignCourse', group: rl('id', String(group.id)), course: rl('id', String(course.id)) };
		const again = await runNode(new LmsGroups(), params, as());
		expect(again.error?.message).toContain('is already assigned to group');
		const existing = await runNode(new LmsGroups(), { ...params, ifAssigned: 'returnExisting' }, as());
		expect(existing.items.map((item) => item.json)).toEqual(await list(`/assignments?group_id=${String(group.id)}`));
		const bad = await runNode(new LmsGroups(), { ...params, additionalFields: { dueInDays: 0 } }, as());
		expect(bad.error?.message).toBe('Due In (Days) must be a whole number from 1 to 3650, not "0"');
	});

	it('Unassign Course by group and course ends it (enrollments stay); by ID a second time is a 404; not assigned says so', async () => {
		const [assignment] = await list(`/assignments?group_id=${String(group.id)}`);
		const run = await runNode(new LmsGroups(), { operation: 'unassignCourse', findBy: 'groupAndCourse', group: rl('name', 'compliance cohort'), course: rl('list', String(course.id)) }, as());
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([{ ...assignment, deleted: true }]);
		expect((await api(`/assignments/${String(assignment.id)}`)).status).toBe(404);
		expect(await list(`/enrollments?assignment_id=${String(assignment.id)}`)).toHaveLength(3);

		const byId = await runNode(new LmsGroups(), { operation: 'unassignCourse', findBy: 'id', assignmentId: String(assignment.id) }, as());
		expect(byId.error?.httpCode).toBe('404');
		const none = await runNode(new LmsGroups(), { operation: 'unassignCourse', findBy: 'groupAndCourse', group: rl('id', String(group.id)), course: rl('id', String(course.id)) }, as());
		expect(none.error?.message).toBe(`Course ${String(course.id)} is not assigned to group ${String(group.id)}`);

		const fresh = (await api('/assignments', { method: 'POST', body: { group_id: group.id, course_id: course.id } })).body;
		const ended = await runNode(new LmsGroups(), { operation: 'unassignCourse', findBy: 'id', assignmentId: String(fresh.id) }, as());
		expect(ended.items.map((item) => ({ ...item.json, applied_at: null }))).toEqual([{ ...fresh, deleted: true }]);
	});
});

describe('the Group picker', () => {
	it('From List searches by a part of the name and shows the member count', async () => {
		const found = await runListSearch(new LmsGroups(), 'searchGroups', { ...as(), filter: 'engin' });
		const [engineering] = await list('/groups?name=Engineering');
		expect(found.results).toEqual([{ name: `Engineering (${Number(engineering.member_count)} members)`, value: engineering.id }]);
		const everyGroup = await runListSearch(new LmsUsers(), 'searchGroups', { ...as() });
		expect(everyGroup.results.length).toBe(Number((await api('/groups?per_page=1')).body.pagination && ((await api('/groups?per_page=1')).body.pagination as IDataObject).total));
	});
});
