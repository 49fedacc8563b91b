/**
 * n8n adds "Custom API Call" to the Resource and Operation of every action node whose credential
 * can authenticate a request by itself, as the LMS API credential does. It is n8n's way to reach
 * an endpoint no operation covers: the HTTP Request node with the LMS API as its predefined
 * credential. That must work, and choosing it on an LMS node must say so instead of failing with
 * an unknown operation.
 */
import { startTestServer, type TestServer } from '../helpers/server';
import { N8nHome, workflowFrom } from './n8n';

const CREDENTIAL = 'lmsRealCustomCr1';

let server: TestServer;
let key: string;
let home: N8nHome;

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	key = (await server.createKey('acme', ['read:users'], 'custom api call')).key;
	home = await N8nHome.create();
	await home.importCredentials([{ id: CREDENTIAL, name: 'LMS', type: 'lmsApi', data: { baseUrl: server.baseUrl, apiKey: key } }]);
}, 600_000);

afterAll(async () => {
	home?.remove();
	await server?.stop();
});

it('the HTTP Request node with the LMS API credential calls any endpoint; the LMS node names it', async () => {
	const workflow = workflowFrom('custom-api-call', { CREDENTIAL_ID: CREDENTIAL, BASE_URL: server.baseUrl });
	await home.importWorkflow(workflow);
	const run = await home.execute(String(workflow.id));

	const response = await fetch(`${server.baseUrl}/api/v1/users?role=student&per_page=3`, { headers: { Authorization: `Bearer ${key}` } });
	expect(response.status).toBe(200);
	expect(run.nodes['Custom API Call'].error).toBeUndefined();
	expect(run.nodes['Custom API Call'].items).toEqual([await response.json()]);

	// The node stops before any item: n8n records the error on the node, which says what to do.
	const { error } = run.nodes['Custom API Call in LMS Users'];
	expect(error?.message).toBe('Custom API Call runs in the HTTP Request node, with the LMS API credential');
	expect(error?.description).toMatch(/Predefined Credential Type.*LMS API.*\/api\/v1\//);
});
