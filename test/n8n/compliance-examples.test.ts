/**
 * The compliance examples (SPEC §17) inside a real n8n 2.41, set up as their notes say and run as
 * users run them: the monthly report with the editor's Execute Workflow, the reminder and the
 * escalation activated, their LMS Trigger polling the real server while deadlines are set through
 * the API. What they produce (the report's items, the emails) is compared with the API's answers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { TestServer } from '../helpers/server';
import { COMPLIANCE_CASES as CASES } from './compliance-cases';
import { lmsWithN8n, type LmsWithN8n } from './lms-with-n8n';
import { LMS, type N8nHome, type N8nServer } from './n8n';
import { SmtpSink } from './smtp';

const EXAMPLES = join(__dirname, '..', '..', 'examples');
const LMS_CREDENTIAL = 'lmsComplCred001';
const SMTP_CREDENTIAL = 'lmsComplSmtp001';
const DAY = 86_400_000;

type Json = Record<string, unknown>;
type Node = { name: string; type: string; parameters: Json; credentials?: Json };

let fixture: LmsWithN8n;
let lms: TestServer;
let key: string;
let smtp: SmtpSink;
let home: N8nHome;
let n8n: N8nServer;

async function api<T = Json>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
	const response = await fetch(`${lms.baseUrl}/api/v1${path}`, {
		method: init.method ?? 'GET',
		headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json' },
		body: init.body === undefined ? undefined : JSON.stringify(init.body),
	});
	if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
	return (await response.json()) as T;
}

function setUp(file: string): Json {
	const workflow = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as Json & { nodes: Node[] };
	for (const node of workflow.nodes) {
		if (node.type.startsWith(LMS(''))) node.credentials = { lmsApi: { id: LMS_CREDENTIAL, name: 'LMS' } };
		if (node.type === 'n8n-nodes-base.emailSend') node.credentials = { smtp: { id: SMTP_CREDENTIAL, name: 'SMTP' } };
	}
	const text = JSON.stringify({ ...workflow, id: CASES[file], active: false });
	const left = /[\w-]*REPLACE_WITH_\w+/.exec(text);
	if (left) throw new Error(`${file}: no value for the placeholder ${left[0]}`);
	return JSON.parse(text) as Json;
}

/** A student and a course they are not enrolled in. */
async function freePair(): Promise<{ student_id: string; course_id: string }> {
	const students = (await api<{ data: Json[] }>('/users?role=student&per_page=100')).data;
	const courses = (await api<{ data: Json[] }>('/courses?per_page=100')).data;
	for (const student of students.reverse()) {
		const taken = new Set((await api<{ data: Json[] }>(`/enrollments?student_id=${String(student.id)}&per_page=100`)).data.map((e) => e.course_id));
		const course = courses.find((candidate) => !taken.has(candidate.id));
		if (course) return { student_id: String(student.id), course_id: String(course.id) };
	}
	throw new Error('no free student and course');
}

const longDate = (iso: unknown) => {
	const date = new Date(String(iso));
	return `${date.getUTCDate()} ${date.toLocaleString('en-US', { month: 'long', timeZone: 'UTC' })} ${date.getUTCFullYear()}`;
};

beforeAll(async () => {
	smtp = await SmtpSink.start();
	fixture = await lmsWithN8n({
		scopes: ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments'],
		credentialId: LMS_CREDENTIAL,
		label: 'compliance examples',
		credentials: () => [{ id: SMTP_CREDENTIAL, name: 'SMTP', type: 'smtp', data: smtp.credential() }],
	});
	({ server: lms, key, home } = fixture);
	await home.importWorkflows(Object.keys(CASES).map(setUp));
	n8n = await home.start();
	// Each trigger's baseline poll is done once its state is saved.
	for (const file of ['due-date-reminder.json', 'overdue-escalation.json']) {
		const id = CASES[file];
		await n8n.activate(id, async () => JSON.stringify((await n8n.staticData(id)) ?? {}).length > 2);
	}
}, 600_000);

afterAll(async () => {
	await n8n?.stop();
	await smtp?.stop();
	await fixture?.close();
});

it('monthly-completion-report: Execute Workflow gives the API’s report item for item and mails it to the auditor', async () => {
	const workflowId = CASES['monthly-completion-report.json'];
	await n8n.runManually(workflowId, '1st of the month at 08:00');
	const [execution] = await n8n.finishedExecutions(workflowId, 1, 60_000, 'the manual run');
	expect(execution.status).toBe('success');
	const report = (await api<{ data: Json[] }>('/reports/course_completion')).data;
	expect(report.length).toBeGreaterThan(1);
	expect(execution.run.nodes['Completion report'].items).toEqual(report);
	const mails = smtp.mails.filter((mail) => mail.to.includes('auditor@example.com'));
	expect(mails).toHaveLength(1);
	expect(mails[0].headers.subject).toMatch(/^Course completion report, \w+ \d{4}$/);
});

it('due-date-reminder and overdue-escalation: a deadline 3 days away reminds the student once; a missed one mails the manager once', async () => {
	const soonPair = await freePair();
	const soon = await api<Json>('/enrollments', { method: 'POST', body: { ...soonPair, due_at: new Date(Date.now() + 3 * DAY).toISOString() } });
	const latePair = await freePair();
	const late = await api<Json>('/enrollments', { method: 'POST', body: { ...latePair, due_at: new Date(Date.now() - DAY).toISOString() } });

	const [reminded] = await n8n.finishedExecutions(CASES['due-date-reminder.json'], 1, 150_000, 'the poll that sees the deadline');
	const [escalated] = await n8n.finishedExecutions(CASES['overdue-escalation.json'], 1, 150_000, 'the poll that sees the overdue event');
	expect([reminded.status, escalated.status]).toEqual(['success', 'success']);
	expect(reminded.run.nodes['Due in 7 days'].items).toEqual([
		{ ...(await api(`/enrollments/${String(soon.id)}`)), event_id: null, event_type: 'enrollment.due_soon', event_created_at: expect.any(String), days_left: 3 },
	]);
	expect(escalated.run.nodes['Enrollment overdue'].items).toEqual([expect.objectContaining({ ...late, event_type: 'enrollment.overdue' })]);

	const student = await api<Json>(`/users/${soonPair.student_id}`);
	const course = await api<Json>(`/courses/${soonPair.course_id}`);
	const reminder = smtp.mails.find((mail) => mail.to.includes(String(student.email)));
	expect(reminder?.headers.subject).toBe(`Reminder: complete ${String(course.title)} by ${longDate(soon.due_at)}`);
	expect(reminder?.text).toContain(`Enrollment ID: ${String(soon.id)}`);

	const lateStudent = await api<Json>(`/users/${latePair.student_id}`);
	const lateCourse = await api<Json>(`/courses/${latePair.course_id}`);
	const escalation = smtp.mails.filter((mail) => mail.to.includes('manager@example.com'));
	expect(escalation).toHaveLength(1);
	expect(escalation[0].headers.subject).toBe(`Overdue: ${String(lateStudent.name)} has not completed ${String(lateCourse.title)}`);
	expect(escalation[0].text).toContain(`Enrollment ID: ${String(late.id)}`);
});
