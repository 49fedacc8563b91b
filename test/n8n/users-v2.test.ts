/**
 * LMS Users version 2.1 in a real n8n: Get by e-mail and by ID answer what the API answers, and
 * If No User Matches decides what "nobody" does (issue 29): Continue With No Item outputs nothing
 * and the workflow goes on, Fail the Item fails it (here under On Error → Continue), and a node
 * saved at version 2 keeps failing the item as it always did.
 */
import { lmsWithN8n } from './lms-with-n8n';
import { workflowFrom, type WorkflowRun } from './n8n';

const CREDENTIAL = 'lmsRealUsersV2Cr';

let lms: Awaited<ReturnType<typeof lmsWithN8n>>;
const api = (path: string): Promise<unknown> => lms.api(path);

let run: WorkflowRun;
let someone: Record<string, unknown> & { id: string; email: string };

beforeAll(async () => {
	lms = await lmsWithN8n({ scopes: ['read:users'], credentialId: CREDENTIAL, label: 'users v2' });
	const students = (await api('/users?role=student&per_page=5')) as { data: Array<typeof someone> };
	someone = students.data[2];
	const workflow = workflowFrom('users-v2', { CREDENTIAL_ID: CREDENTIAL, USER_EMAIL: someone.email.toUpperCase(), USER_ID: someone.id });
	await lms.home.importWorkflow(workflow);
	run = await lms.home.execute(String(workflow.id));
}, 600_000);

afterAll(async () => await lms?.close());

it('Get by e-mail (any case) and by ID answer the API record', async () => {
	const record = await api(`/users/${someone.id}`);
	expect(run.nodes['By email'].items).toEqual([record]);
	expect(run.nodes['By ID'].items).toEqual([record]);
});

it('Continue With No Item: nobody by e-mail or by ID outputs no item and fails nothing', () => {
	for (const name of ['Nobody by email, continue', 'Nobody by ID, continue']) {
		expect(run.nodes[name].error).toBeUndefined();
		expect(run.nodes[name].items).toEqual([]);
	}
	expect(run.error).toBeUndefined();
});

it('Fail the Item, and version 2 as it was: the item fails with the sentence that names the e-mail', () => {
	for (const name of ['Nobody by email, fail', 'Nobody by email, version 2']) {
		const [failed] = run.nodes[name].items;
		expect(String(failed.error)).toContain('nobody@nowhere.example');
	}
});
