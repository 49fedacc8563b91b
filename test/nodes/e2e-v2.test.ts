/**
 * Version 2 of the action nodes against the real reference server, run by n8n-core's
 * WorkflowExecute as a new node (typeVersion 2) would run: every picker mode, the new filters,
 * and Enrollments → Update through the whole lifecycle (SPEC §10, §13, §15).
 */
import type { IDataObject } from 'n8n-workflow';

import { LmsCertificates } from '../../nodes/LmsCertificates/LmsCertificates.node';
import { LmsCourses } from '../../nodes/LmsCourses/LmsCourses.node';
import { LmsEnrollments } from '../../nodes/LmsEnrollments/LmsEnrollments.node';
import { LmsUsers } from '../../nodes/LmsUsers/LmsUsers.node';
import { runNode } from '../helpers/n8n';
import { startTestServer, type TestServer } from '../helpers/server';

const DAY = 24 * 60 * 60 * 1000;
const rl = (mode: string, value: string) => ({ __rl: true, mode, value });

let server: TestServer;
let apiKey: string;
const as = () => ({ credentials: { baseUrl: server.baseUrl, apiKey } });

async function api(path: string, init: RequestInit = {}): Promise<IDataObject> {
	const response = await fetch(`${server.baseUrl}/api/v1${path}`, {
		...init,
		headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
	});
	return (await response.json()) as IDataObject;
}

async function apiAll(path: string): Promise<IDataObject[]> {
	const records: IDataObject[] = [];
	for (let page = 1; ; page++) {
		const body = await api(`${path}${path.includes('?') ? '&' : '?'}per_page=100&page=${page}`);
		records.push(...(body.data as IDataObject[]));
		if ((body.data as unknown[]).length < 100) return records;
	}
}

let student: { id: string; email: string; name: string };

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	apiKey = (await server.createKey('acme', ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments'], 'n8n v2 e2e')).key;
	student = ((await api('/users?role=student&per_page=1')).data as Array<typeof student>)[0];
}, 120_000);

afterAll(async () => {
	await server?.stop();
});

describe('LMS Users v2', () => {
	it.each(['list', 'id'])('Get with the user picked in mode %s', async (mode) => {
		const { items, error } = await runNode(new LmsUsers(), { operation: 'get', user: rl(mode, student.id) }, as());
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([await api(`/users/${student.id}`)]);
	});

	it('Get By Email finds the user whatever the case', async () => {
		const { items } = await runNode(new LmsUsers(), { operation: 'get', user: rl('email', student.email.toUpperCase()) }, as());
		expect(items[0].json.id).toBe(student.id);
	});

	it('Get By Email with an address nobody has says so', async () => {
		const { error } = await runNode(new LmsUsers(), { operation: 'get', user: rl('email', 'nobody-here@example.com') }, as());
		expect(error?.message).toBe('No LMS user has the email address nobody-here@example.com');
	});

	it('Get, If No User Matches → Continue With No Item (version 2.1): nobody with that email, or no such ID, outputs no item and no error', async () => {
		for (const user of [rl('email', 'nobody-here@example.com'), rl('id', 'usr_doesNotExist')]) {
			const { items, error } = await runNode(new LmsUsers(), { operation: 'get', user, onNoMatch: 'continue' }, { ...as(), typeVersion: 2.1 });
			expect({ items, error }).toEqual({ items: [], error: undefined });
		}
		const found = await runNode(new LmsUsers(), { operation: 'get', user: rl('email', student.email), onNoMatch: 'continue' }, { ...as(), typeVersion: 2.1 });
		expect(found.items.map((item) => item.json.id)).toEqual([student.id]);
	});

	it('Get, If No User Matches → Fail the Item is the default; a version 2 node fails as it always did', async () => {
		for (const [typeVersion, parameters] of [
			[2.1, {}],
			[2, { onNoMatch: 'continue' }],
		] as const) {
			const { error } = await runNode(new LmsUsers(), { operation: 'get', user: rl('email', 'nobody-here@example.com'), ...parameters }, { ...as(), typeVersion });
			expect(error?.message).toBe('No LMS user has the email address nobody-here@example.com');
		}
	});

	it('Get Many with Search returns what users?search= returns, across pages', async () => {
		const text = student.name.split(' ').pop()!.slice(0, 2);
		const { items } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: true, filters: { search: text, role: 'student' } }, as());
		const expected = await apiAll(`/users?search=${encodeURIComponent(text)}&role=student`);
		expect(expected.length).toBeGreaterThan(0);
		expect(items.map((item) => item.json)).toEqual(expected);
		expect(items.map((item) => item.json.id)).toContain(student.id);
	});
});

describe('LMS Courses v2', () => {
	it('Get by picker, and Get Many with Search', async () => {
		const courses = await apiAll('/courses');
		const course = courses[0] as { id: string; title: string };
		const { items } = await runNode(new LmsCourses(), { operation: 'get', course: rl('list', course.id) }, as());
		expect(items[0].json).toEqual(course);

		const word = course.title.split(' ')[0].slice(0, 3);
		const { items: found } = await runNode(new LmsCourses(), { operation: 'getAll', returnAll: true, filters: { search: word } }, as());
		expect(found.map((item) => item.json)).toEqual(await apiAll(`/courses?search=${encodeURIComponent(word)}`));
		expect(found.map((item) => item.json.id)).toContain(course.id);
	});

	it('a draft course picked By ID answers not found with the ID named', async () => {
		const draft = server.demo!.draft_courses.find((course) => course.organization === 'acme')!;
		const { error } = await runNode(new LmsCourses(), { operation: 'get', course: rl('id', draft.id) }, as());
		expect(error?.message).toMatch(new RegExp(`^Course ${draft.id} was not found`));
	});
});

describe('LMS Enrollments v2', () => {
	let enrollmentId: string;

	it('Create with the student By Email and the course From List, then again with "return existing"', async () => {
		const taken = new Set((await apiAll(`/enrollments?student_id=${student.id}`)).map((e) => e.course_id));
		const course = (await apiAll('/courses')).find((candidate) => !taken.has(candidate.id))!;
		const parameters = {
			operation: 'create',
			student: rl('email', student.email),
			course: rl('list', String(course.id)),
			ifAlreadyEnrolled: 'returnExisting',
		};
		const created = await runNode(new LmsEnrollments(), parameters, as());
		expect(created.error).toBeUndefined();
		expect(created.items[0].json).toMatchObject({ student_id: student.id, course_id: course.id, status: 'active', progress_percent: 0 });
		enrollmentId = String(created.items[0].json.id);

		const again = await runNode(new LmsEnrollments(), parameters, as());
		expect(again.items[0].json.id).toBe(enrollmentId);
	});

	it('Get Many filters by student (By Email), course (picker) and status', async () => {
		const enrollment = await api(`/enrollments/${enrollmentId}`);
		const { items } = await runNode(
			new LmsEnrollments(),
			{
				operation: 'getAll',
				returnAll: true,
				filters: { student: rl('email', student.email), course: rl('id', String(enrollment.course_id)), status: 'active' },
			},
			as(),
		);
		expect(items.map((item) => item.json)).toEqual([enrollment]);
	});

	const update = (change: string, extra: IDataObject = {}) =>
		runNode(new LmsEnrollments(), { operation: 'update', enrollment: rl('id', enrollmentId), change, ...extra }, as());

	it('Update walks the lifecycle: progress, withdraw, progress refused, reactivate, complete (certificate issued), final', async () => {
		const progressed = await update('progress', { progressPercent: 40 });
		expect(progressed.items[0].json).toMatchObject({ id: enrollmentId, status: 'active', progress_percent: 40 });

		const withdrawn = await update('withdraw');
		expect(withdrawn.items[0].json).toMatchObject({ status: 'withdrawn' });

		const refused = await update('progress', { progressPercent: 50 });
		expect(refused.error?.message).toBe(
			`Enrollment ${enrollmentId} is withdrawn, so its progress cannot change: reactivate it first (Update → Change: Reactivate), then set the progress`,
		);
		expect(refused.error?.httpCode).toBe('409');

		const completeRefused = await update('complete');
		expect(completeRefused.error?.message).toBe(
			`Enrollment ${enrollmentId} is withdrawn, so it cannot become completed: reactivate it first (Update → Change: Reactivate), then complete it`,
		);

		const reactivated = await update('reactivate');
		expect(reactivated.items[0].json).toMatchObject({ status: 'active', progress_percent: 40 });

		const completed = await update('complete');
		expect(completed.items[0].json).toMatchObject({ status: 'completed', progress_percent: 100 });
		expect((await api(`/certificates?student_id=${student.id}&course_id=${completed.items[0].json.course_id}`)).data).toHaveLength(1);

		// Completing again changes nothing: safe to retry.
		const again = await update('complete');
		expect(again.error).toBeUndefined();
		expect(again.items[0].json).toEqual(completed.items[0].json);

		const final = await update('withdraw');
		expect(final.error?.message).toBe(
			`Enrollment ${enrollmentId} is completed, and a completed enrollment is final: it cannot be withdrawn, reactivated or change progress. Leave it as it is, or filter Get Many on status Active before updating`,
		);
	});

	it('Get picks the enrollment By ID', async () => {
		const { items } = await runNode(new LmsEnrollments(), { operation: 'get', enrollment: rl('id', enrollmentId) }, as());
		expect(items[0].json).toEqual(await api(`/enrollments/${enrollmentId}`));
	});

	it('a key without write:enrollments is told the scope it lacks', async () => {
		const readOnly = (await server.createKey('acme', ['read:enrollments'], 'read only')).key;
		const { error } = await runNode(
			new LmsEnrollments(),
			{ operation: 'update', enrollment: rl('id', enrollmentId), change: 'progress', progressPercent: 10 },
			{ credentials: { baseUrl: server.baseUrl, apiKey: readOnly } },
		);
		expect(error?.message).toBe(
			'The key lacks write:enrollments: create a key with write:enrollments in Settings → API Keys and paste it into the credential',
		);
	});
});

describe('LMS Certificates v2', () => {
	/** The certificates whose expires_at lies in (from, to), from the API's full list. */
	async function inWindow(from: number, to: number): Promise<string[]> {
		return (await apiAll('/certificates'))
			.filter((c) => c.expires_at && Date.parse(String(c.expires_at)) > from && Date.parse(String(c.expires_at)) < to)
			.map((c) => String(c.id));
	}

	it.each([
		['Expiring Within 30 days', { expiringWithin: 30 }, 0, 30],
		['Expired Since 30 days', { expiredSince: 30 }, -30, 0],
		['Expired Since 60 and Expiring Within 90', { expiredSince: 60, expiringWithin: 90 }, -60, 90],
	])('%s returns the certificates that expire in that window', async (_name, filters, fromDays, toDays) => {
		const now = Date.now();
		const expected = await inWindow(now + fromDays * DAY, now + toDays * DAY);
		const { items, error } = await runNode(new LmsCertificates(), { operation: 'getAll', returnAll: true, filters }, as());
		expect(error).toBeUndefined();
		expect(expected.length).toBeGreaterThan(0);
		expect(items.map((item) => String(item.json.id))).toEqual(expected);
	});

	it('student (By Email) and course pickers, and Get By ID', async () => {
		const certificate = ((await api('/certificates?per_page=1')).data as IDataObject[])[0];
		const owner = await api(`/users/${certificate.student_id}`);
		const { items } = await runNode(
			new LmsCertificates(),
			{
				operation: 'getAll',
				returnAll: true,
				filters: { student: rl('email', String(owner.email)), course: rl('list', String(certificate.course_id)) },
			},
			as(),
		);
		expect(items.map((item) => item.json)).toEqual(
			await apiAll(`/certificates?student_id=${certificate.student_id}&course_id=${certificate.course_id}`),
		);
		const { items: got } = await runNode(new LmsCertificates(), { operation: 'get', certificate: rl('id', String(certificate.id)) }, as());
		expect(got[0].json).toEqual(certificate);
	});

	it('Verification Code finds the certificate printed with it, as a person types it; an unknown code is no item', async () => {
		const certificate = ((await api('/certificates?per_page=1&sort=-created_at')).data as IDataObject[])[0];
		const code = String(certificate.verification_code);
		const typed = `${code.slice(0, 4).toLowerCase()}-${code.slice(4, 8)} ${code.slice(8)}`;
		const found = await runNode(new LmsCertificates(), { operation: 'getAll', returnAll: true, filters: { verificationCode: typed } }, as());
		expect(found.error).toBeUndefined();
		expect(found.items.map((item) => item.json)).toEqual([certificate]);
		const unknown = await runNode(new LmsCertificates(), { operation: 'getAll', returnAll: true, filters: { verificationCode: 'NOSUCHCODE00' } }, as());
		expect(unknown.error).toBeUndefined();
		expect(unknown.items).toEqual([]);
		const wrong = await runNode(new LmsCertificates(), { operation: 'getAll', returnAll: true, filters: { verificationCode: 'code #12' } }, as());
		expect(wrong.error?.message).toBe(
			'Verification Code must be the letters and digits printed on the certificate (up to 20, e.g. 7HD3PLX9QA2V), not "code #12"',
		);
	});
});
