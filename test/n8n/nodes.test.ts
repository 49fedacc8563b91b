/**
 * Every operation of the four action nodes, installed from the package tarball into a real n8n
 * 2.41 and run with `n8n execute`, compared with what the API itself answers for the same
 * question. Plus an error item under On Error → Continue, and a wrong key.
 */
import type { TestServer } from '../helpers/server';
import { lmsWithN8n, type LmsWithN8n } from './lms-with-n8n';
import { workflowFrom, type N8nHome, type WorkflowRun } from './n8n';

const ALL_SCOPES = ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments'];
const CREDENTIAL = 'lmsRealCred00001';
const WRONG_CREDENTIAL = 'lmsRealWrongCr01';

type Record_ = Record<string, unknown> & { id: string };

let fixture: LmsWithN8n;
let server: TestServer;
let key: string;
let home: N8nHome;

/** Every record the API lists for `path`, page by page (the yardstick for Return All). */
async function all(path: string, query = ''): Promise<Record_[]> {
	const records: Record_[] = [];
	for (let page = 1; ; page++) {
		const body = (await api(`${path}?per_page=100&page=${page}${query}`)) as { data: Record_[]; pagination: { total: number } };
		records.push(...body.data);
		if (records.length >= body.pagination.total || body.data.length === 0) return records;
	}
}

async function api(path: string, init: RequestInit = {}): Promise<unknown> {
	const response = await fetch(`${server.baseUrl}/api/v1${path}`, {
		...init,
		headers: { Authorization: `Bearer ${key}`, 'content-type': 'application/json' },
	});
	if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
	return await response.json();
}

async function execute(name: string, values: Record<string, string> = {}): Promise<WorkflowRun> {
	const workflow = workflowFrom(name, { CREDENTIAL_ID: CREDENTIAL, ...values });
	await home.importWorkflow(workflow);
	return await home.execute(String(workflow.id));
}

beforeAll(async () => {
	// The limit is raised so this file measures mappings, not waiting; return-all.test.ts runs
	// the nodes under a tight one.
	fixture = await lmsWithN8n({
		scopes: ALL_SCOPES,
		credentialId: CREDENTIAL,
		label: 'real n8n',
		credentials: (lms) => [{ id: WRONG_CREDENTIAL, name: 'LMS (wrong key)', type: 'lmsApi', data: { baseUrl: lms.baseUrl, apiKey: 'lms_notAKeyOfThisServer000000000000' } }],
	});
	({ server, key, home } = fixture);
}, 600_000);

afterAll(async () => {
	await fixture?.close();
});

it('LMS Users: Get Many (all, limit, role, email) and Get answer what the API answers', async () => {
	const users = await all('/users');
	const students = await all('/users', '&role=student');
	const someone = students[3];

	const run = await execute('users', { USER_EMAIL: someone.email as string, USER_ID: someone.id });

	expect(run.error).toBeUndefined();
	expect(users.length).toBeGreaterThan(100); // more than one page
	expect(run.nodes['All users'].items).toEqual(users);
	expect(run.nodes['Seven users'].items).toEqual(users.slice(0, 7));
	expect(run.nodes['Students'].items).toEqual(students);
	expect(run.nodes['By email'].items).toEqual([someone]);
	expect(run.nodes['One user'].items).toEqual([someone]);
	// On Error → Continue: the failure is an item that says what went wrong, and the run goes on.
	const [failed] = run.nodes['Unknown user'].items;
	expect(JSON.stringify(failed.error)).toContain('usr_doesNotExist0000');
});

it('LMS Courses: Get Many (all, limit) and Get answer what the API answers', async () => {
	const courses = await all('/courses');

	const run = await execute('courses', { COURSE_ID: courses[1].id });

	expect(run.error).toBeUndefined();
	expect(run.nodes['All courses'].items).toEqual(courses);
	expect(run.nodes['Three courses'].items).toEqual(courses.slice(0, 3));
	expect(run.nodes['One course'].items).toEqual([courses[1]]);
});

it('LMS Enrollments: Get Many with each filter, Get, Create, and Create when already enrolled', async () => {
	const enrollments = await all('/enrollments');
	const course = (await all('/courses'))[0];
	const inCourse = await all('/enrollments', `&course_id=${course.id}`);
	const enrolled = new Set(inCourse.map((e) => e.student_id));
	const existing = enrollments.find((e) => e.status === 'active')!;
	const student = existing.student_id as string;
	const students = await all('/users', '&role=student');
	const newcomer = students.find((s) => s.id !== student && !enrolled.has(s.id))!;
	// What the API answers before the run: the run's own Create comes after the reads.
	const completed = await all('/enrollments', '&status=completed');
	const ofStudent = await all('/enrollments', `&student_id=${student}`);

	const run = await execute('enrollments', {
		COURSE_ID: course.id,
		STUDENT_ID: student,
		ENROLLMENT_ID: enrollments[2].id,
		NEW_STUDENT_ID: newcomer.id,
		ENROLLED_COURSE_ID: existing.course_id as string,
	});

	expect(run.error).toBeUndefined();
	expect(enrollments.length).toBeGreaterThan(100);
	expect(run.nodes['All enrollments'].items).toEqual(enrollments);
	expect(run.nodes['Completed'].items).toEqual(completed);
	expect(run.nodes['In one course'].items).toEqual(inCourse);
	expect(run.nodes['Of one student'].items).toEqual(ofStudent);
	expect(run.nodes['One enrollment'].items).toEqual([enrollments[2]]);

	const [created] = run.nodes['Enroll'].items;
	expect(created).toMatchObject({ student_id: newcomer.id, course_id: course.id, status: 'active' });
	expect(await api(`/enrollments/${created.id as string}`)).toEqual(created);
	expect(run.nodes['Enroll again, return existing'].items).toEqual([await api(`/enrollments/${existing.id}`)]);
	const [refused] = run.nodes['Enroll again, fail'].items;
	expect(JSON.stringify(refused.error)).toMatch(/already enrolled/i);
});

it('LMS Certificates: Get Many (all, student) and Get answer what the API answers', async () => {
	const certificates = await all('/certificates');
	const holder = certificates[0].student_id as string;

	const run = await execute('certificates', { CERT_STUDENT_ID: holder, CERTIFICATE_ID: certificates[1].id });

	expect(run.error).toBeUndefined();
	expect(certificates.length).toBeGreaterThan(0);
	expect(run.nodes['All certificates'].items).toEqual(certificates);
	expect(run.nodes['Of one student'].items).toEqual(await all('/certificates', `&student_id=${holder}`));
	expect(run.nodes['One certificate'].items).toEqual([certificates[1]]);
});

it('a wrong key fails the workflow with what to do and the server’s own words', async () => {
	const workflow = workflowFrom('wrong-key', { CREDENTIAL_ID: WRONG_CREDENTIAL });
	await home.importWorkflow(workflow);

	const run = await home.execute(String(workflow.id));

	const error = run.nodes['All users'].error;
	expect(error).toBeDefined();
	expect(`${error!.message} ${error!.description ?? ''}`).toMatch(/key/i);
	expect(run.nodes['All users'].items).toEqual([]);
});
