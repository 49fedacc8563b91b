/**
 * LMS Users' write operations in a real n8n (issue 24): three people from an HR export go through
 * Create → Update (renamed, made instructor, external ID cleared) → Deactivate → Reactivate, each node taking the previous one's items. Each
 * node's output is what the API says of the person at that step, item for item and paired.
 */
import { lmsWithN8n } from './lms-with-n8n';
import { workflowFrom, type WorkflowRun } from './n8n';

const PEOPLE = [
	{ name: 'Ada Writer', email: 'ada@real-n8n-users.example', hr: 'HR-9001' },
	{ name: 'Grace Writer', email: 'grace@real-n8n-users.example', hr: 'HR-9002' },
	{ name: 'Linus Writer', email: 'linus@real-n8n-users.example', hr: 'HR-9003' },
];

let lms: Awaited<ReturnType<typeof lmsWithN8n>>;
let run: WorkflowRun;
const api = (path: string) => lms.api(path);

beforeAll(async () => {
	lms = await lmsWithN8n({ scopes: ['read:users', 'write:users'], credentialId: 'lmsRealUsersWrCr', label: 'users writes' });
	const workflow = workflowFrom('users-write', { CREDENTIAL_ID: 'lmsRealUsersWrCr', PEOPLE_JSON: JSON.stringify({ people: PEOPLE }) });
	await lms.home.importWorkflow(workflow);
	run = await lms.home.execute(String(workflow.id));
}, 600_000);

afterAll(async () => await lms?.close());

it('runs without an error, every node paired item for item', () => {
	expect(run.error).toBeUndefined();
	for (const node of ['Create', 'Update', 'Deactivate', 'Reactivate']) {
		expect(run.nodes[node].paired).toEqual(PEOPLE.map((_, item) => expect.objectContaining({ item })));
	}
});

it('Create makes each person as the export has them, a student', () => {
	expect(run.nodes['Create'].items.map((user) => [user.name, user.email, user.external_id, user.role, user.status])).toEqual(
		PEOPLE.map((person) => [person.name, person.email, person.hr, 'student', 'active']),
	);
});

it('Update changes only what it names (Clear External ID removes the HR id); Deactivate switches them off; Reactivate back, as the API has them now', async () => {
	const ids = run.nodes['Create'].items.map((user) => user.id);
	expect(run.nodes['Update'].items.map((user) => [user.id, user.name, user.role, user.email, user.external_id])).toEqual(
		PEOPLE.map((person, i) => [ids[i], `${person.name} (renamed)`, 'instructor', person.email, null]),
	);
	// The HR ids are free again.
	expect((await api(`/users?${PEOPLE.map((person) => `external_id=${person.hr}`).join('&')}`)).data).toEqual([]);
	expect(run.nodes['Deactivate'].items.map((user) => [user.id, user.status, typeof user.deactivated_at])).toEqual(ids.map((id) => [id, 'deactivated', 'string']));
	const now = await Promise.all(ids.map((id) => api(`/users/${String(id)}`)));
	expect(run.nodes['Reactivate'].items).toEqual(now);
	expect(now.map((user) => [user.status, user.deactivated_at])).toEqual(ids.map(() => ['active', null]));
});

it('the event feed has each step once per person', async () => {
	const ids = new Set(run.nodes['Create'].items.map((user) => user.id));
	const feed = (await api('/events?type=user.created,user.updated,user.deactivated,user.reactivated&limit=100')).data as Array<{ type: string; data: { object: { id: string } } }>;
	const ours = feed.filter((event) => ids.has(event.data.object.id));
	for (const type of ['user.created', 'user.updated', 'user.deactivated', 'user.reactivated']) {
		expect(ours.filter((event) => event.type === type)).toHaveLength(PEOPLE.length);
	}
});
