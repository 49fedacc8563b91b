/**
 * n8n adds "Custom API Call" to the Resource and Operation of every action node whose credential
 * can authenticate a request by itself, as the LMS API credential does. It is n8n's way to reach
 * an endpoint no operation covers: the HTTP Request node with the LMS API as its predefined
 * credential. That must work, and choosing it on an LMS node must say so instead of failing with
 * an unknown operation.
 */
import { lmsWithN8n, type LmsWithN8n } from './lms-with-n8n';
import { workflowFrom } from './n8n';

const CREDENTIAL = 'lmsRealCustomCr1';

let lms: LmsWithN8n;

beforeAll(async () => {
	lms = await lmsWithN8n({ scopes: ['read:users'], credentialId: CREDENTIAL, label: 'custom api call' });
}, 600_000);

afterAll(async () => await lms?.close());

it('the HTTP Request node with the LMS API credential calls any endpoint; the LMS node names it', async () => {
	const workflow = workflowFrom('custom-api-call', { CREDENTIAL_ID: CREDENTIAL, BASE_URL: lms.server.baseUrl });
	await lms.home.importWorkflow(workflow);
	const run = await lms.home.execute(String(workflow.id));

	expect(run.nodes['Custom API Call'].error).toBeUndefined();
	expect(run.nodes['Custom API Call'].items).toEqual([await lms.api('/users?role=student&per_page=3')]);

	// The node stops before any item: n8n records the error on the node, which says what to do.
	const { error } = run.nodes['Custom API Call in LMS Users'];
	expect(error?.message).toBe('Custom API Call runs in the HTTP Request node, with the LMS API credential');
	expect(error?.description).toMatch(/Predefined Credential Type.*LMS API.*\/api\/v1\//);
});
