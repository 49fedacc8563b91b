/**
 * The LMS Instant Trigger's promises that only a running n8n can show (`n8n start`, the
 * workflow activated as the editor does, changes made with `lms-server` commands):
 * - each event starts the workflow once: a retried delivery (the same event under a new
 *   signature, as the LMS sends when the 2xx of an attempt was lost) and an exact replay of a
 *   signed request are acknowledged without an execution. n8n 2.41 does not save what
 *   webhook() writes into the static data, so this holds only because the LMS keeps the receipt.
 * - after a restart: an endpoint deleted or disabled while n8n was down is reported by
 *   checkExists wherever n8n calls it, and made again: at start when n8n activates workflows
 *   at start (N8N_USE_WORKFLOW_PUBLICATION_SERVICE=false; n8n 2.41's default publication
 *   service checks no webhook at start), else when the workflow is published again.
 */
import { WebhookEndpoint } from '../../server/src/db';
import { EVENT_TYPES } from '../../server/src/events/types';
import { signatureHeader } from '../../server/src/webhooks/signature';
import { runCli } from '../helpers/cli';
import type { TestServer } from '../helpers/server';
import { lmsWithN8n, type LmsWithN8n } from './lms-with-n8n';
import { waitFor, workflowFrom, type N8nHome, type N8nServer } from './n8n';

const CREDENTIAL = 'lmsRealCred00001';
const WORKFLOW = 'lmsRealInstant02';
const SCOPES = ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments', 'manage:webhooks'];

let fixture: LmsWithN8n;
let lms: TestServer;
let key: string;
let home: N8nHome;
let n8n: N8nServer;

async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
	const response = await fetch(`${lms.baseUrl}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}` } });
	if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
	return (response.status === 204 ? undefined : await response.json()) as T;
}

type Endpoint = { id: string; url: string; events: string[]; status: string };
const endpoints = async () => (await api<{ data: Endpoint[] }>('/webhook_endpoints')).data;

/** Completes an active enrollment with the operator's CLI; answers its id. */
async function complete(): Promise<string> {
	const { data } = await api<{ data: Array<{ id: string }> }>('/enrollments?status=active&per_page=1');
	const result = await runCli(['enrollments', 'update', data[0].id, '--status', 'completed'], { env: { DATABASE_URL: lms.databaseUrl } });
	if (result.code !== 0) throw new Error(`lms-server enrollments update: ${result.stderr}`);
	return data[0].id;
}

const completedIn = (execution: { run: { nodes: Record<string, { items: Array<Record<string, unknown>> }> } }) =>
	execution.run.nodes['LMS Instant Trigger'].items.map((item) => item.id);

beforeAll(async () => {
	// WEBHOOK_ALLOW_PRIVATE: the LMS delivers to n8n on this machine.
	fixture = await lmsWithN8n({ scopes: SCOPES, credentialId: CREDENTIAL, label: 'real n8n instant trigger', env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
	({ server: lms, key, home } = fixture);
	await home.importWorkflow(workflowFrom('instant-trigger', { CREDENTIAL_ID: CREDENTIAL }));
	n8n = await home.start();
	await n8n.activate(WORKFLOW, async () => (await endpoints()).length === 1);
}, 600_000);

afterAll(async () => {
	await n8n?.stop();
	await fixture?.close();
});

it('one event, one execution: its retry under a new signature and an exact replay start nothing', async () => {
	const first = await complete();
	const [execution] = await n8n.finishedExecutions(WORKFLOW, 1, 30_000, 'the pushed completion');
	expect(completedIn(execution)).toEqual([first]);
	const eventId = String(execution.run.nodes['LMS Instant Trigger'].items[0].event_id);

	// What the LMS sends when it retries: the same bytes (the feed's), signed again with the
	// endpoint's secret (in the node's static data, which n8n saved at activation).
	const [endpoint] = await endpoints();
	const { webhookSecret } = (await n8n.staticData(WORKFLOW))!['node:LMS Instant Trigger'] as { webhookSecret: string };
	const body = await (await fetch(`${lms.baseUrl}/api/v1/events/${eventId}`, { headers: { Authorization: `Bearer ${key}` } })).text();
	const retry = { 'content-type': 'application/json', 'lms-event-id': eventId, 'lms-signature': signatureHeader(webhookSecret, body, new Date(Date.now() + 1000)) };
	for (const copy of ['the retry', 'the exact replay of that request']) {
		const reply = await fetch(endpoint.url, { method: 'POST', headers: retry, body });
		expect([copy, reply.status, await reply.json()]).toEqual([copy, 200, { received: true, duplicate: true }]);
	}

	// A positive signal before counting: the next event's execution.
	const second = await complete();
	const executions = await n8n.finishedExecutions(WORKFLOW, 2, 30_000, 'the next completion');
	expect(executions.map(completedIn)).toEqual([[first], [second]]);
});

/** Stops n8n, lets `whileDown` break the subscription, starts n8n again on the same port (same webhook URL). */
async function restart(whileDown: (endpoint: Endpoint) => Promise<void>, env: Record<string, string> = {}): Promise<Endpoint> {
	const [lost] = await endpoints();
	await n8n.stop();
	await whileDown(lost);
	n8n = await home.start(env, n8n.port);
	return lost;
}

/** The subscription is back (a new endpoint, enabled, for the same URL and events) and the next completion runs the workflow. */
async function expectRepaired(lost: Endpoint): Promise<void> {
	await waitFor(async () => (await endpoints()).some((e) => e.status === 'enabled' && e.id !== lost.id), 60_000, 'the subscription to be made again');
	expect(await endpoints()).toEqual([expect.objectContaining({ url: lost.url, events: lost.events, status: 'enabled' })]);
	const before = (await n8n.executions(WORKFLOW)).length;
	const next = await complete();
	const executions = await n8n.finishedExecutions(WORKFLOW, before + 1, 30_000, 'a completion after the repair');
	expect(completedIn(executions.at(-1)!)).toEqual([next]);
}

it('an endpoint deleted while n8n was down is made again when n8n starts (n8n activating workflows at start: N8N_USE_WORKFLOW_PUBLICATION_SERVICE=false)', async () => {
	const lost = await restart(
		async (endpoint) => {
			await api(`/webhook_endpoints/${endpoint.id}`, { method: 'DELETE' });
			expect(await endpoints()).toEqual([]);
		},
		{ N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false' },
	);
	await expectRepaired(lost);
});

it('an endpoint the LMS disabled while n8n was down: n8n 2.41 does not check webhooks at start; publishing the workflow again repairs it', async () => {
	const lost = await restart((endpoint) => WebhookEndpoint.update({ status: 'disabled', disabledReason: 'three days of failed deliveries' }, { where: { id: endpoint.id } }).then(() => undefined));
	// What docs/n8n.md tells a user: unpublish and publish the workflow.
	await n8n.deactivate(WORKFLOW);
	await n8n.activate(WORKFLOW, async () => (await endpoints()).some((e) => e.status === 'enabled'));
	await expectRepaired(lost);
});

it('one vocabulary: n8n shows both triggers with the same events, every LMS event type (plus the polling trigger\'s own two)', async () => {
	type Described = { properties: Array<{ name: string; options?: Array<{ name: string; value: string }> }> };
	// What the editor asks for a node's description (node type and version).
	const events = async (name: string, version: number) => {
		const [node] = await n8n.rest<Described[]>('POST', '/node-types', { nodeInfos: [{ name: `n8n-nodes-lms.${name}`, version }] });
		return node.properties.find((p) => p.name === 'events')!.options!.map(({ name: label, value }) => ({ label, value }));
	};
	const instant = await events('lmsInstantTrigger', 1);
	// Certificate Expiring and Enrollment Due Soon are the polling trigger's own: it reads the lists
	// for them; no event of the LMS says so, so a webhook has nothing to pass on.
	const pollingOnly = ['certificate.expiring', 'enrollment.due_soon'];
	expect((await events('lmsTrigger', 2)).filter((option) => !pollingOnly.includes(option.value))).toEqual(instant);
	expect(instant.map((option) => option.value).sort()).toEqual([...EVENT_TYPES].sort());
});
