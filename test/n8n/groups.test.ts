/**
 * LMS Groups in a real n8n 2.41 (issue 37), against the real server, item for item against the
 * API: one workflow runs Create → Assign Course → (three people, one item each) Add Members → Get
 * Members → Get Many (Member filter) → Remove Members (a list of IDs) → Unassign Course, so the
 * students who join after the assignment are enrolled by the join, due 30 days after it, and the
 * one who leaves has that enrollment withdrawn (On Removal: Withdraw). Then the example
 * examples/group-course-assignment.json, set up as its note says, gives a course to a group that
 * already has members: each is enrolled in the background, due in 30 days; a second run returns
 * the same assignment. examples/new-hire-department.json, activated in `n8n start`, takes a new
 * hire posted by "HR" into their department's group, whose assignment enrolls them by the join.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { waitUntil } from '../helpers/wait';
import { GROUP_CASES } from './group-cases';
import { lmsWithN8n, type LmsWithN8n } from './lms-with-n8n';
import { LMS, workflowFrom, type N8nServer, type WorkflowRun } from './n8n';

type Json = Record<string, unknown>;
const DAY = 86_400_000;
const CREDENTIAL = 'lmsRealGroupsCr1';

let lms: LmsWithN8n;

async function call(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: Json }> {
	const response = await fetch(`${lms.server.baseUrl}/api/v1${path}`, {
		method: init.method ?? 'GET',
		headers: { Authorization: `Bearer ${lms.key}`, 'content-type': 'application/json' },
		body: init.body === undefined ? undefined : JSON.stringify(init.body),
	});
	return { status: response.status, body: response.status === 204 ? {} : ((await response.json()) as Json) };
}
const list = async (path: string) => (await lms.api<{ data: Json[] }>(path)).data;

async function students(prefix: string, count: number): Promise<Json[]> {
	const made: Json[] = [];
	for (let i = 0; i < count; i++) made.push((await call('/users', { method: 'POST', body: { name: `${prefix} ${i}`, email: `${prefix.toLowerCase()}${i}@real-n8n-groups.example` } })).body);
	return made;
}

/** The example as its note says to set it up: the credential in the LMS node, the group and course picked. */
function example(file: string, values: Record<string, string>): Json {
	const workflow = JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', file), 'utf8')) as Json & { nodes: Array<Json & { type: string }> };
	for (const node of workflow.nodes) if (node.type.startsWith(LMS(''))) node.credentials = { lmsApi: { id: CREDENTIAL, name: 'LMS' } };
	let text = JSON.stringify({ ...workflow, id: GROUP_CASES[file], active: false });
	for (const [placeholder, value] of Object.entries(values)) text = text.split(placeholder).join(value);
	const left = /[\w-]*REPLACE_WITH_\w+/.exec(text);
	if (left) throw new Error(`${file}: no value for the placeholder ${left[0]}`);
	return JSON.parse(text) as Json;
}

let courses: Json[];
let people: Json[];
let members: Json[];
let run: WorkflowRun;

beforeAll(async () => {
	lms = await lmsWithN8n({
		scopes: ['read:users', 'write:users', 'read:courses', 'read:enrollments', 'write:enrollments'],
		credentialId: CREDENTIAL,
		label: 'real n8n groups',
	});
	courses = (await list('/courses?per_page=100')).filter((course) => course.status === 'published');
	people = await students('Joiner', 3);
	members = await students('Member', 2);
	const operations = workflowFrom('groups', {
		CREDENTIAL_ID: CREDENTIAL,
		GROUP_NAME: 'Real n8n Team',
		GROUP_EXTERNAL_ID: 'okta-real-n8n-team',
		COURSE_ID: String(courses[0].id),
		PEOPLE_JSON: JSON.stringify({ people: people.map((person) => ({ id: person.id })) }),
		LEAVER_ID: String(people[2].id),
	});
	await lms.home.importWorkflows([
		operations,
		example('group-course-assignment.json', { REPLACE_WITH_GROUP_NAME: 'Example Sales', crs_REPLACE_WITH_COURSE_ID: String(courses[1].id) }),
		example('new-hire-department.json', {}),
	]);
	run = await lms.home.execute(String(operations.id));
}, 600_000);

afterAll(async () => await lms?.close());

describe('the operations, one after the other', () => {
	it('run without an error', () => {
		expect(run.error).toBeUndefined();
		for (const [name, node] of Object.entries(run.nodes)) expect({ name, error: node.error }).toEqual({ name, error: undefined });
	});

	it('Create makes the group; Assign Course gives it the course, due 30 days, withdrawing on removal', async () => {
		const [group] = run.nodes['Create'].items;
		expect(group).toMatchObject({ name: 'Real n8n Team', external_id: 'okta-real-n8n-team', member_count: 0 });
		expect((await list('/groups?external_id=okta-real-n8n-team')).map((g) => g.id)).toEqual([group.id]);
		const [assignment] = run.nodes['Assign'].items;
		expect(assignment).toMatchObject({ group_id: group.id, course_id: courses[0].id, due_in_days: 30, on_removal: 'withdraw' });
		expect(String(assignment.id)).toMatch(/^asg_/);
	});

	it('Add Members: one item per person, each with its share of the answer, paired', () => {
		const [group] = run.nodes['Create'].items;
		expect(run.nodes['Add Members'].items).toEqual(people.map((person) => ({ group_id: group.id, added: [person.id], unchanged: [] })));
		expect(run.nodes['Add Members'].paired).toEqual(people.map((_, item) => expect.objectContaining({ item })));
	});

	it('Get Members lists the three as users, as the API has them; Get Many by Member finds the group for each', async () => {
		const listed = run.nodes['Get Members'].items;
		expect(listed.map((user) => user.id).sort()).toEqual(people.map((person) => person.id).sort());
		for (const user of listed) expect(user).toEqual(await lms.api(`/users/${String(user.id)}`));
		const [group] = run.nodes['Create'].items;
		expect(run.nodes['Get Many'].items.map((g) => [g.id, g.member_count])).toEqual(people.map(() => [group.id, 3]));
	});

	it('each joiner was enrolled by the join, due 30 days after the assignment; the leaver withdrawn; Unassign ended it and the enrollments stay', async () => {
		const [assignment] = run.nodes['Assign'].items;
		expect(run.nodes['Remove Members'].items).toEqual([{ group_id: assignment.group_id, removed: [people[2].id], unchanged: [] }]);
		const [ended] = run.nodes['Unassign'].items;
		expect(ended).toMatchObject({ id: assignment.id, group_id: assignment.group_id, course_id: courses[0].id, deleted: true });
		expect((await call(`/assignments/${String(assignment.id)}`)).status).toBe(404);

		const enrollments = await list(`/enrollments?assignment_id=${String(assignment.id)}&per_page=100`);
		const byStudent = Object.fromEntries(enrollments.map((enrollment) => [String(enrollment.student_id), enrollment]));
		expect(Object.keys(byStudent).sort()).toEqual(people.map((person) => String(person.id)).sort());
		for (const enrollment of enrollments) {
			expect(Date.parse(String(enrollment.due_at)) - Date.parse(String(assignment.created_at))).toBe(30 * DAY);
		}
		expect(people.map((person) => byStudent[String(person.id)].status)).toEqual(['active', 'active', 'withdrawn']);
	});
});

describe('examples/group-course-assignment.json', () => {
	it('enrolls every student of the group, due 30 days after the assignment; run again, returns the same assignment', async () => {
		const group = (await call('/groups', { method: 'POST', body: { name: 'Example Sales' } })).body;
		await call(`/groups/${String(group.id)}/members`, { method: 'POST', body: { user_ids: members.map((member) => member.id) } });

		const first = await lms.home.execute(GROUP_CASES['group-course-assignment.json']);
		expect(first.error).toBeUndefined();
		const [assignment] = first.nodes['Assign course to group'].items;
		expect(assignment).toMatchObject({ group_id: group.id, course_id: courses[1].id, due_in_days: 30, on_removal: 'withdraw' });
		const applied = await waitUntil(async () => (await call(`/assignments/${String(assignment.id)}`)).body.applied_at, { timeout: 30_000, what: 'the assignment applied' });
		expect(await lms.api(`/assignments/${String(assignment.id)}`)).toEqual({ ...assignment, applied_at: applied });

		const enrollments = await list(`/enrollments?group_id=${String(group.id)}&course_id=${String(courses[1].id)}&per_page=100`);
		expect(enrollments.map((enrollment) => enrollment.student_id).sort()).toEqual(members.map((member) => member.id).sort());
		for (const enrollment of enrollments) {
			expect(enrollment).toMatchObject({ assignment_id: assignment.id, status: 'active' });
			expect(Date.parse(String(enrollment.due_at)) - Date.parse(String(assignment.created_at))).toBe(30 * DAY);
		}

		const second = await lms.home.execute(GROUP_CASES['group-course-assignment.json']);
		expect(second.nodes['Assign course to group'].items).toEqual([{ ...assignment, applied_at: applied }]);
		expect(await list(`/assignments?group_id=${String(group.id)}`)).toHaveLength(1);
	});
});

describe('examples/new-hire-department.json in a running n8n', () => {
	let n8n: N8nServer;

	beforeAll(async () => {
		n8n = await lms.home.start();
		const id = GROUP_CASES['new-hire-department.json'];
		await n8n.activate(id, async () => (await n8n.rest<{ active?: boolean }>('GET', `/workflows/${id}`)).active === true);
	}, 300_000);

	afterAll(async () => await n8n?.stop());

	/**
	 * n8n reports the workflow active a moment before its webhook listens; until then it answers
	 * 404 "not registered" without running anything, so the post is sent again until it is taken.
	 */
	async function postNewHire(body: Json): Promise<void> {
		const response = await waitUntil(
			async () => {
				const answer = await fetch(`${n8n.url}/webhook/new-hire-department`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
				return answer.status === 404 ? undefined : answer;
			},
			{ timeout: 60_000, interval: 250, what: 'the webhook to be registered' },
		);
		expect({ status: response.status, body: response.status === 200 ? '' : await response.text() }).toEqual({ status: 200, body: '' });
	}

	it("a new hire joins their department's group and its assignment enrolls them; posted again, nothing changes", async () => {
		const department = (await call('/groups', { method: 'POST', body: { name: 'Field Engineering' } })).body;
		const assignment = (await call('/assignments', { method: 'POST', body: { group_id: department.id, course_id: courses[2].id, due_in_days: 14 } })).body;
		const workflowId = GROUP_CASES['new-hire-department.json'];
		const hire = { email: 'dana.dept@real-n8n-groups.example', name: 'Dana Dept', department: 'field engineering' };

		await postNewHire(hire);
		const [first] = await n8n.finishedExecutions(workflowId, 1, 60_000, 'the new-hire run');
		expect(first.status).toBe('success');
		const [user] = await list(`/users?email=${hire.email}`);
		expect(first.run.nodes['Create or update LMS user'].items).toEqual([user]);
		expect(first.run.nodes['Department group'].items.map((group) => group.id)).toEqual([department.id]);
		expect(first.run.nodes['Add to department'].items).toEqual([{ group_id: department.id, added: [user.id], unchanged: [] }]);
		const enrollments = await list(`/enrollments?student_id=${String(user.id)}`);
		expect(enrollments).toHaveLength(1);
		expect(enrollments[0]).toMatchObject({ course_id: courses[2].id, assignment_id: assignment.id, status: 'active' });
		expect(Date.parse(String(enrollments[0].due_at)) - Date.parse(String(assignment.created_at))).toBe(14 * DAY);

		await postNewHire(hire);
		const [, second] = await n8n.finishedExecutions(workflowId, 2, 60_000, 'the repeated new-hire run');
		expect(second.status).toBe('success');
		expect(second.run.nodes['Add to department'].items).toEqual([{ group_id: department.id, added: [], unchanged: [user.id] }]);
		expect(await list(`/enrollments?student_id=${String(user.id)}`)).toEqual(enrollments);
		expect((await list('/groups?search=engineering')).map((group) => group.name)).toEqual(['Field Engineering']);
	});
});
