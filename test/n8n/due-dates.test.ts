/**
 * Due dates as a workflow builder gives them, inside a real n8n 2.41 (issue 43): the workflow's
 * Settings → Timezone is Asia/Kolkata (not n8n's default America/New_York, so the setting is
 * what is read). LMS Enrollments 2.2 takes a date alone as the end of that day there, a date and
 * time without an offset as that wall time there, and a value with an offset as given; Update's
 * Set Due Date the same; a node saved at 2.1 keeps that day's midnight. Each output is the API's
 * record, due_at the UTC instant it stored.
 */
import { User, Organization } from '../../server/src/db';
import { lmsWithN8n, type LmsWithN8n } from './lms-with-n8n';
import { workflowFrom, type WorkflowRun } from './n8n';

const CREDENTIAL = 'lmsRealDueDateCr';

let lms: LmsWithN8n;
let run: WorkflowRun;

/** Each input item's Due Date, and the due_at it must be in Kolkata (UTC+05:30, no daylight saving). */
const CASES = [
	{ due: '2030-12-01', v22: '2030-12-01T18:29:59.999Z', v21: '2030-11-30T18:30:00.000Z' },
	{ due: '2030-12-01T09:00:00', v22: '2030-12-01T03:30:00.000Z', v21: '2030-12-01T03:30:00.000Z' },
	{ due: '2030-12-01T09:00:00Z', v22: '2030-12-01T09:00:00.000Z', v21: '2030-12-01T09:00:00.000Z' },
];

beforeAll(async () => {
	lms = await lmsWithN8n({ scopes: ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments'], credentialId: CREDENTIAL, label: 'real n8n due dates' });
	const organizationId = (await Organization.findOne({ where: { slug: 'acme' } }))!.id;
	const students = await User.bulkCreate(
		Array.from({ length: CASES.length * 2 }, (_, i) => ({ organizationId, name: `Due ${i}`, email: `due${i}@real-n8n-due.example`, role: 'student' as const, passwordHash: null })),
	);
	const course = (await lms.api<{ data: Array<{ id: string }> }>('/courses?per_page=1')).data[0].id;
	const deadlines = CASES.map(({ due }, i) => ({ student: students[i].id, student21: students[CASES.length + i].id, due }));
	const workflow = workflowFrom('due-dates', {
		CREDENTIAL_ID: CREDENTIAL,
		COURSE_ID: course,
		TIMEZONE: 'Asia/Kolkata',
		MOVED_TO: '2030-12-24',
		DEADLINES_JSON: JSON.stringify({ deadlines }),
	});
	await lms.home.importWorkflow(workflow);
	run = await lms.home.execute(String(workflow.id));
}, 600_000);

afterAll(async () => await lms?.close());

it("2.2: a date alone is the end of that day in the workflow's time zone; a time without an offset is read there; an offset is taken as given", async () => {
	expect(run.error).toBeUndefined();
	const out = run.nodes['Enroll'].items;
	expect(out.map((item) => item.due_at)).toEqual(CASES.map((c) => c.v22));
	// The API's record since Move deadline changed its due_at (and so updated_at): the rest as created.
	for (const item of out) expect(item).toEqual({ ...(await lms.api(`/enrollments/${String(item.id)}`)), due_at: item.due_at, updated_at: item.updated_at });
});

it('2.2 Update → Set Due Date with a date alone: the end of that day in the same zone', async () => {
	const out = run.nodes['Move deadline'].items;
	expect(out.map((item) => item.due_at)).toEqual(CASES.map(() => '2030-12-24T18:29:59.999Z'));
	for (const item of out) expect(item).toEqual(await lms.api(`/enrollments/${String(item.id)}`));
});

it('a node saved at 2.1 runs as it did: a date alone is that day’s midnight in the workflow’s zone', async () => {
	const out = run.nodes['Enroll, saved at 2.1'].items;
	expect(out.map((item) => item.due_at)).toEqual(CASES.map((c) => c.v21));
	for (const item of out) expect(item).toEqual(await lms.api(`/enrollments/${String(item.id)}`));
});
