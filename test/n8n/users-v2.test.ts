/**
 * LMS Users version 2.1 in a real n8n: Get by e-mail and by ID answer what the API answers, and
 * If No User Matches decides what "nobody" does (issue 29): Continue With No Item outputs nothing
 * and the workflow goes on, Fail the Item fails it (here under On Error → Continue), and a node
 * saved at version 2 keeps failing the item as it always did.
 */
import { startTestServer, type TestServer } from '../helpers/server';
import { N8nHome, workflowFrom, type WorkflowRun } from './n8n';

const CREDENTIAL = 'lmsRealUsersV2Cr';

let server: TestServer;
let key: string;
let home: N8nHome;

async function api(path: string): Promise<unknown> {
	const response = await fetch(`${server.baseUrl}/api/v1${path}`, { headers: { Authorization: `Bearer ${key}` } });
	if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
	return await response.json();
}

let run: WorkflowRun;
let someone: Record<string, unknown> & { id: string; email: string };

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	key = (await server.createKey('acme', ['read:users'], 'users v2')).key;
	home = await N8nHome.create();
	await home.importCredentials([{ id: CREDENTIAL, name: 'LMS', type: 'lmsApi', data: { baseUrl: server.baseUrl, apiKey: key } }]);
	const students = (await api('/users?role=student&per_page=5')) as { data: Array<typeof someone> };
	someone = students.data[2];
	const workflow = workflowFrom('users-v2', { CREDENTIAL_ID: CREDENTIAL, USER_EMAIL: someone.email.toUpperCase(), USER_ID: someone.id });
	await home.importWorkflow(workflow);
	run = await home.execute(String(workflow.id));
}, 600_000);

afterAll(async () => {
	home?.remove();
	await server?.stop();
});

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
