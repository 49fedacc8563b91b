/**
 * The example workflows of examples/ inside a real n8n 2.41 (`n8n start`), set up as their notes
 * tell a user to (the LMS credential picked in every LMS node, the placeholders replaced) and run
 * as they run for users: Schedule Trigger workflows with the editor's Execute Workflow; Webhook,
 * LMS Trigger and LMS Instant Trigger workflows activated and fed by real HTTP requests and by
 * changes made with `lms-server`; emails sent to a local SMTP server, the CRM record to a local
 * HTTP server. What they produce is compared with the API's answers. A new example needs a case
 * here: the first test fails until it has one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';

import { runCli } from '../helpers/cli';
import type { TestServer } from '../helpers/server';
import { COMPLIANCE_CASES } from './compliance-cases';
import { GROUP_CASES } from './group-cases';
import { lmsWithN8n, type LmsWithN8n } from './lms-with-n8n';
import { LMS, waitFor, type N8nHome, type N8nServer } from './n8n';
import { SmtpSink } from './smtp';

const EXAMPLES = join(__dirname, '..', '..', 'examples');
const LMS_CREDENTIAL = 'lmsExampleCred01';
const SMTP_CREDENTIAL = 'lmsExampleSmtp01';
/** The scopes the examples' notes ask for, together. */
const SCOPES = ['read:users', 'write:users', 'read:courses', 'read:enrollments', 'write:enrollments', 'manage:webhooks'];

type Json = Record<string, unknown>;
type Node = { name: string; type: string; parameters: Json; credentials?: Json };

/** Workflow ids given to the examples on import (the files carry none, as exported workflows). */
const CASES: Record<string, string> = {
	'certificates-this-week.json': 'lmsExampleWeek01',
	'enroll-new-hires.json': 'lmsExampleHire01',
	'new-certificate-notify.json': 'lmsExampleCert01',
	'onboard-new-hire.json': 'lmsExampleOnbd02',
	'offboard-leaver.json': 'lmsExampleOffb01',
	'completion-to-crm.json': 'lmsExampleCrm002',
	'certificate-expiry-reminder.json': 'lmsExampleExpi02',
};

let fixture: LmsWithN8n;
let lms: TestServer;
let key: string;
let smtp: SmtpSink;
/** The "CRM": an HTTP server that records the JSON bodies posted to it. */
let crm: Server;
const crmRecords: Json[] = [];
let home: N8nHome;

async function api<T = Json>(path: string): Promise<T> {
	const response = await fetch(`${lms.baseUrl}/api/v1${path}`, { headers: { Authorization: `Bearer ${key}` } });
	if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
	return (await response.json()) as T;
}

/** Every record of a list, page by page. */
async function all(path: string): Promise<Json[]> {
	const records: Json[] = [];
	for (let page = 1; ; page++) {
		const body = await api<{ data: Json[]; pagination: { total: number } }>(`${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`);
		records.push(...body.data);
		if (records.length >= body.pagination.total || body.data.length === 0) return records;
	}
}

async function cli(...args: string[]): Promise<string> {
	const result = await runCli(args, { env: { DATABASE_URL: lms.databaseUrl } });
	if (result.code !== 0) throw new Error(`lms-server ${args.join(' ')}: ${result.stderr}`);
	return result.stdout;
}

/**
 * An example as a user sets it up after importing it: the LMS credential in every LMS node, the
 * SMTP credential in every email node, and each `REPLACE_WITH_…` placeholder replaced by
 * `values` (a placeholder left over fails the test, so the notes and this file stay in step).
 */
function setUp(file: string, values: Record<string, string> = {}): Json {
	const workflow = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as Json & { nodes: Node[] };
	for (const node of workflow.nodes) {
		if (node.type.startsWith(LMS(''))) node.credentials = { lmsApi: { id: LMS_CREDENTIAL, name: 'LMS' } };
		if (node.type === 'n8n-nodes-base.emailSend') node.credentials = { smtp: { id: SMTP_CREDENTIAL, name: 'SMTP' } };
	}
	let text = JSON.stringify({ ...workflow, id: CASES[file], active: false });
	for (const [placeholder, value] of Object.entries(values)) text = text.split(placeholder).join(value);
	const left = /[\w-]*REPLACE_WITH_\w+/.exec(text);
	if (left) throw new Error(`${file}: no value for the placeholder ${left[0]}`);
	return JSON.parse(text) as Json;
}

beforeAll(async () => {
	// WEBHOOK_ALLOW_PRIVATE: the LMS delivers to n8n on this machine (the Instant Trigger).
	smtp = await SmtpSink.start();
	crm = createServer((request, response) => {
		let body = '';
		request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
		request.on('end', () => {
			crmRecords.push(JSON.parse(body) as Json);
			response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
		});
	});
	await new Promise<void>((resolve) => crm.listen(0, '127.0.0.1', resolve));
	fixture = await lmsWithN8n({
		scopes: SCOPES,
		credentialId: LMS_CREDENTIAL,
		label: 'real n8n examples',
		env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
		credentials: () => [{ id: SMTP_CREDENTIAL, name: 'SMTP', type: 'smtp', data: smtp.credential() }],
	});
	({ server: lms, key, home } = fixture);
}, 600_000);

afterAll(async () => {
	await smtp?.stop();
	await new Promise((resolve) => (crm ? crm.close(resolve) : resolve(undefined)));
	await fixture?.close();
});

it('every example has a case in this file (the compliance examples in compliance-examples.test.ts, the group examples in groups.test.ts)', () => {
	const files = readdirSync(EXAMPLES).filter((file) => file.endsWith('.json'));
	expect(files.sort()).toEqual([...Object.keys(CASES), ...Object.keys(COMPLIANCE_CASES), ...Object.keys(GROUP_CASES)].sort());
});

describe('in a running n8n', () => {
	let n8n: N8nServer;

	async function postNewHire(email: string, path = 'new-hire', name?: string): Promise<void> {
		const response = await fetch(`${n8n.url}/webhook/${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ email, name }),
		});
		expect(response.status).toBe(200);
	}

	let course: Json;
	const hire = { email: 'ada.newhire@acme.test', name: 'Ada Newhire' };
	const crmUrl = () => `http://127.0.0.1:${(crm.address() as { port: number }).port}/incoming`;

	let completedThisWeek: Json;

	beforeAll(async () => {
		// One certificate surely issued this week, before the LMS Trigger's baseline: an
		// enrollment completed now.
		const [learner] = (await api<{ data: Json[] }>('/enrollments?status=active&per_page=1')).data;
		await cli('enrollments', 'update', String(learner.id), '--status', 'completed');
		[completedThisWeek] = await all(`/certificates?student_id=${String(learner.student_id)}&course_id=${String(learner.course_id)}`);
		[course] = (await api<{ data: Json[] }>('/courses?per_page=1')).data;
		await home.importWorkflows([
			setUp('certificates-this-week.json'),
			setUp('enroll-new-hires.json', { crs_REPLACE_WITH_ONBOARDING_COURSE_ID: String(course.id) }),
			setUp('new-certificate-notify.json'),
			setUp('onboard-new-hire.json', { crs_REPLACE_WITH_ONBOARDING_COURSE_ID: String(course.id) }),
			setUp('offboard-leaver.json'),
			setUp('completion-to-crm.json', { REPLACE_WITH_YOUR_CRM_WEBHOOK_URL: crmUrl() }),
			setUp('certificate-expiry-reminder.json'),
		]);
		n8n = await home.start();
		const active = async (id: string) => (await n8n.rest<{ active?: boolean }>('GET', `/workflows/${id}`)).active === true;
		for (const file of ['enroll-new-hires.json', 'onboard-new-hire.json', 'offboard-leaver.json']) await n8n.activate(CASES[file], () => active(CASES[file]));
		// The Instant Trigger is running once the LMS has its endpoint.
		const endpoints = async () => (await api<{ data: Json[] }>('/webhook_endpoints')).data.length;
		await n8n.activate(CASES['completion-to-crm.json'], async () => (await endpoints()) === 1);
		// The trigger's baseline poll is done once its cursor is saved (see triggers.test.ts).
		const notify = CASES['new-certificate-notify.json'];
		await n8n.activate(notify, async () => JSON.stringify((await n8n.staticData(notify)) ?? {}).length > 2);
	}, 300_000);

	afterAll(async () => {
		await n8n?.stop();
	});

	it("certificates-this-week: Execute Workflow lists this week's certificates with each student's name and email", async () => {
		const workflowId = CASES['certificates-this-week.json'];
		await n8n.runManually(workflowId, 'Every Friday at 16:00');
		const [execution] = await n8n.finishedExecutions(workflowId, 1, 60_000, 'the manual run');

		// n8n's $now.startOf('week') in UTC (the suite's GENERIC_TIMEZONE): Monday 00:00.
		const now = new Date();
		const monday = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - ((now.getUTCDay() + 6) % 7));
		const thisWeek = (await all('/certificates')).filter((certificate) => Date.parse(String(certificate.issued_at)) >= monday);
		const expected = [];
		for (const certificate of thisWeek) {
			const student = await api(`/users/${String(certificate.student_id)}`);
			expected.push({
				student: student.name,
				email: student.email,
				course_id: certificate.course_id,
				issued_at: certificate.issued_at,
				verification_code: certificate.verification_code,
			});
		}
		expect(execution.status).toBe('success');
		expect(expected.map((row) => row.verification_code)).toContain(completedThisWeek.verification_code);
		expect(execution.run.nodes['Certificate list'].items).toEqual(expected);
	});

	it('enroll-new-hires: a new hire posted twice is enrolled once; an unknown email is not enrolled', async () => {
		const workflowId = CASES['enroll-new-hires.json'];
		const created = await cli('users', 'create', '--org', 'acme', '--email', hire.email, '--name', hire.name, '--role', 'student', '--json');
		const studentId = (JSON.parse(created) as { id: string }).id;
		const enrollments = () => all(`/enrollments?student_id=${studentId}&course_id=${String(course.id)}`);

		await postNewHire(hire.email);
		const [first] = await n8n.finishedExecutions(workflowId, 1, 30_000, 'the first new-hire run');
		const [enrollment] = await enrollments();
		expect(first.status).toBe('success');
		expect(first.run.nodes['Enroll in onboarding'].items).toEqual([enrollment]);
		expect(enrollment).toMatchObject({ student_id: studentId, course_id: course.id, status: 'active' });

		// HR systems resend: Return Existing Enrollment makes the repeat harmless.
		await postNewHire(hire.email);
		const [, second] = await n8n.finishedExecutions(workflowId, 2, 30_000, 'the repeated new-hire run');
		expect(second.status).toBe('success');
		expect(second.run.nodes['Enroll in onboarding'].items).toEqual([enrollment]);
		expect(await enrollments()).toEqual([enrollment]);

		// Someone without an LMS account leaves through the IF node's false branch.
		await postNewHire('nobody.here@acme.test');
		const [, , third] = await n8n.finishedExecutions(workflowId, 3, 30_000, 'the unknown-email run');
		expect(third.status).toBe('success');
		expect(third.run.nodes['Find LMS user'].items).toEqual([{}]);
		expect(third.run.nodes['Enroll in onboarding']).toBeUndefined();
	});

	it('onboard-new-hire (Create or Update): a new hire unknown to the LMS is created and enrolled; posted again, updated and enrolled once', async () => {
		const workflowId = CASES['onboard-new-hire.json'];
		const person = async () => (await api<{ data: Json[] }>('/users?email=grace.newhire@acme.test')).data;
		expect(await person()).toEqual([]);

		await postNewHire('grace.newhire@acme.test', 'onboard-new-hire', 'Grace Newhire');
		const [first] = await n8n.finishedExecutions(workflowId, 1, 30_000, 'the first onboarding run');
		const [created] = await person();
		const enrollments = () => all(`/enrollments?student_id=${String(created.id)}&course_id=${String(course.id)}`);
		const [enrollment] = await enrollments();
		expect(first.status).toBe('success');
		expect(first.run.nodes['Create or update LMS user'].items).toEqual([created]);
		expect(created).toMatchObject({ name: 'Grace Newhire', role: 'student', status: 'active' });
		expect(first.run.nodes['Enroll in onboarding'].items).toEqual([enrollment]);
		expect(enrollment).toMatchObject({ student_id: created.id, course_id: course.id, status: 'active' });

		// HR resends with the name corrected: the same user, updated; the same enrollment.
		await postNewHire('GRACE.newhire@acme.test', 'onboard-new-hire', 'Grace B. Newhire');
		const [, second] = await n8n.finishedExecutions(workflowId, 2, 30_000, 'the repeated onboarding run');
		expect(second.status).toBe('success');
		expect(second.run.nodes['Create or update LMS user'].items).toEqual(await person());
		expect(await person()).toEqual([expect.objectContaining({ id: created.id, name: 'Grace B. Newhire' })]);
		expect(second.run.nodes['Enroll in onboarding'].items).toEqual([enrollment]);
		expect(await enrollments()).toEqual([enrollment]);
	});

	it('offboard-leaver: HR says someone left: they are deactivated, their active enrollments withdrawn, and the manager told which', async () => {
		const workflowId = CASES['offboard-leaver.json'];
		const created = await cli('users', 'create', '--org', 'acme', '--email', 'sam.leaver@acme.test', '--name', 'Sam Leaver', '--role', 'student', '--json');
		const leaverId = (JSON.parse(created) as { id: string }).id;
		const courses = (await api<{ data: Json[] }>('/courses?per_page=3')).data;
		const enrolled: Json[] = [];
		for (const [i, each] of courses.entries()) {
			const made = await cli('enrollments', 'create', '--org', 'acme', '--student', leaverId, '--course', String(each.id), '--json');
			enrolled.push(JSON.parse(made) as Json);
			// The first was withdrawn long before: the manager is not told about it again.
			if (i === 0) await cli('enrollments', 'update', String(enrolled[0].id), '--status', 'withdrawn');
		}

		const response = await fetch(`${n8n.url}/webhook/offboard-leaver`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ email: 'SAM.leaver@acme.test', manager_email: 'lee.manager@example.com' }),
		});
		expect(response.status).toBe(200);
		const [execution] = await n8n.finishedExecutions(workflowId, 1, 60_000, 'the offboarding run');
		const leaver = await api(`/users/${leaverId}`);
		expect(execution.status).toBe('success');
		expect(execution.run.nodes['Deactivate in LMS'].items).toEqual([leaver]);
		expect(leaver).toMatchObject({ status: 'deactivated' });
		const withdrawn = await all(`/enrollments?student_id=${leaverId}&status=withdrawn`);
		expect(withdrawn.map((e) => e.id).sort()).toEqual(enrolled.map((e) => e.id).sort());

		const [mail] = smtp.mails.filter((candidate) => candidate.to.includes('lee.manager@example.com'));
		expect(mail.headers.subject).toBe('Offboarded in the LMS: Sam Leaver');
		const line = mail.text.split('\n').find((text) => text.startsWith('Withdrawn from: '))!;
		expect(line.slice('Withdrawn from: '.length).split(', ').sort()).toEqual(courses.slice(1).map((c) => String(c.id)).sort());
		expect(smtp.mails.filter((candidate) => candidate.to.includes('lee.manager@example.com'))).toHaveLength(1);
	});

	it('certificate-expiry-reminder (v2, Expiring Within 30): Execute Workflow emails each student whose certificate expires within 30 days', async () => {
		const workflowId = CASES['certificate-expiry-reminder.json'];
		await n8n.runManually(workflowId, 'Every Monday at 09:00');
		const [execution] = await n8n.finishedExecutions(workflowId, 1, 120_000, 'the manual run');
		const now = Date.now();
		const window = `expires_after=${new Date(now).toISOString()}&expires_before=${new Date(now + 30 * 86_400_000).toISOString()}`;
		const expiring = await all(`/certificates?${window}`);

		expect(execution.status).toBe('success');
		expect(expiring.length).toBeGreaterThan(0);
		expect(execution.run.nodes['Expiring in 30 days'].items).toEqual(expiring);
		const reminders = smtp.mails.filter((mail) => mail.text.includes('Retake the course'));
		expect(reminders).toHaveLength(expiring.length);
		for (const certificate of expiring) {
			const student = await api(`/users/${String(certificate.student_id)}`);
			const title = String((await api(`/courses/${String(certificate.course_id)}`)).title);
			const expires = new Date(String(certificate.expires_at));
			const date = `${expires.getUTCDate()} ${expires.toLocaleString('en-US', { month: 'long', timeZone: 'UTC' })} ${expires.getUTCFullYear()}`;
			const mail = reminders.find((candidate) => candidate.text.includes(`Certificate ID: ${String(certificate.id)}`));
			expect(mail?.to).toEqual([student.email]);
			expect(mail?.headers.subject).toBe(`Your certificate for ${title} expires on ${date}`);
			expect(mail?.text).toContain(`Verification code: ${String(certificate.verification_code)}`);
		}
	});

	it('new-certificate-notify and completion-to-crm: one completion emails HR once (polled) and posts one CRM record (pushed)', async () => {
		const workflowId = CASES['new-certificate-notify.json'];
		const student = (await api<{ data: Json[] }>(`/users?email=${encodeURIComponent(hire.email)}`)).data[0];
		const [enrollment] = await all(`/enrollments?student_id=${String(student.id)}&course_id=${String(course.id)}`);
		await cli('enrollments', 'update', String(enrollment.id), '--status', 'completed');
		const [certificate] = await all(`/certificates?student_id=${String(student.id)}&course_id=${String(course.id)}`);

		// n8n polls at most once a minute.
		// Pushed at once: the CRM record of the completion.
		const [pushed] = await n8n.finishedExecutions(CASES['completion-to-crm.json'], 1, 15_000, 'the pushed completion');
		expect(pushed.status).toBe('success');
		const completed = await api(`/enrollments/${String(enrollment.id)}`);
		expect(crmRecords).toEqual([
			{
				email: hire.email,
				name: hire.name,
				course: course.title,
				course_id: course.id,
				enrollment_id: enrollment.id,
				completed_at: completed.completed_at,
			},
		]);

		const [execution] = await n8n.finishedExecutions(workflowId, 1, 90_000, 'the poll that sees the certificate');
		// The LMS owes no delivery any more (none pending), and the next poll is a minute away: what ran is final.
		const endpoints = (await api<{ data: Array<{ id: string }> }>('/webhook_endpoints')).data;
		await waitFor(
			async () => {
				const pending = await Promise.all(endpoints.map((e) => api<{ pagination: { total: number } }>(`/webhook_endpoints/${e.id}/deliveries?status=pending&per_page=1`)));
				return pending.every((list) => list.pagination.total === 0);
			},
			15_000,
			'every delivery settled',
		);
		expect(await n8n.executions(workflowId)).toHaveLength(1);
		expect(await n8n.executions(CASES['completion-to-crm.json'])).toHaveLength(1);
		expect(crmRecords).toHaveLength(1);
		expect(execution.status).toBe('success');
		expect(execution.run.nodes['New certificate'].items).toEqual([certificate]);

		const toHr = smtp.mails.filter((mail) => mail.to.includes('hr@example.com'));
		expect(toHr).toHaveLength(1);
		const [mail] = toHr;
		expect(mail.from).toBe('lms-notifications@example.com');
		expect(mail.to).toEqual(['hr@example.com']);
		expect(mail.headers.subject).toBe(`${hire.name} earned a certificate: ${String(course.title)}`);
		expect(mail.text).toContain(`${hire.name} (${hire.email}) earned the certificate for "${String(course.title)}"`);
		expect(mail.text).toContain(`Verification code: ${String(certificate.verification_code)}`);
		expect(mail.text).toContain(`Certificate ID: ${String(certificate.id)}`);
	});
});
