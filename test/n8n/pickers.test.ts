/**
 * The version-2 record pickers inside a running n8n 2.41 (`n8n start`): n8n's editor fills a
 * From List picker by POSTing /rest/dynamic-node-parameters/resource-locator-results with the node
 * type and version, the method, the typed text and the pagination token; n8n then loads the
 * versioned node and calls its listSearch method. This is that call, against the real LMS.
 */
import type { TestServer } from '../helpers/server';
import { lmsWithN8n, type LmsWithN8n } from './lms-with-n8n';
import { workflowFrom, type N8nHome, type N8nServer } from './n8n';

const CREDENTIAL = 'lmsRealPickers01';

let fixture: LmsWithN8n;
let lms: TestServer;
let key: string;
let home: N8nHome;
let n8n: N8nServer;

interface Named {
	id: string;
	status: string;
	verification_code?: string;
	student: { name: string; email: string };
	course: { title: string };
}

/** The certificate the check workflow looks up, and the code as a person types it from paper. */
let checked: Named;
const CHECK_WORKFLOW = 'lmsRealCertCheck1';

interface Results {
	results: Array<{ name: string; value: string }>;
	paginationToken?: string;
}

async function api<T>(path: string): Promise<T> {
	const response = await fetch(`${lms.baseUrl}/api/v1${path}`, { headers: { Authorization: `Bearer ${key}` } });
	return (await response.json()) as T;
}

/** What the editor sends when a picker opens, is typed into, or is scrolled. */
async function pick(node: string, path: string, methodName: string, filter?: string, paginationToken?: string): Promise<Results> {
	return await n8n.rest<Results>('POST', '/dynamic-node-parameters/resource-locator-results', {
		nodeTypeAndVersion: { name: `n8n-nodes-lms.${node}`, version: 2 },
		path,
		methodName,
		currentNodeParameters: {},
		credentials: { lmsApi: { id: CREDENTIAL, name: 'LMS' } },
		...(filter === undefined ? {} : { filter }),
		...(paginationToken === undefined ? {} : { paginationToken }),
	});
}

beforeAll(async () => {
	fixture = await lmsWithN8n({ scopes: ['read:users', 'read:courses', 'read:enrollments'], credentialId: CREDENTIAL, label: 'real n8n pickers' });
	({ server: lms, key, home } = fixture);
	checked = (await api<{ data: Named[] }>('/certificates?sort=-created_at&expand=student,course&per_page=1')).data[0];
	const code = checked.verification_code!;
	const typed = `${code.slice(0, 6).toLowerCase()}-${code.slice(6)}`;
	await home.importWorkflow(workflowFrom('certificate-check', { CREDENTIAL_ID: CREDENTIAL, TYPED_CODE: typed }));
	n8n = await home.start();
}, 600_000);

afterAll(async () => {
	await n8n?.stop();
	await fixture?.close();
});

it('the student picker searches users by name and pages with the token n8n hands back', async () => {
	const student = (await api<{ data: Array<{ id: string; name: string; email: string }> }>('/users?role=student&per_page=1')).data[0];
	const word = student.name.split(' ').pop()!.slice(0, 3);
	const found = await pick('lmsEnrollments', 'parameters.student', 'searchStudents', word);
	expect(found.results).toContainEqual({ name: `${student.name} (${student.email})`, value: student.id });

	const first = await pick('lmsUsers', 'parameters.user', 'searchUsers');
	const second = await pick('lmsUsers', 'parameters.user', 'searchUsers', undefined, first.paginationToken);
	const page2 = await api<{ data: Array<{ id: string }> }>('/users?per_page=50&page=2');
	expect(first.paginationToken).toBe('2');
	expect(second.results.map((result) => result.value)).toEqual(page2.data.map((user) => user.id));
}, 60_000);

it('the course picker searches titles', async () => {
	const course = (await api<{ data: Array<{ id: string; title: string }> }>('/courses?per_page=1')).data[0];
	const found = await pick('lmsCourses', 'parameters.course', 'searchCourses', course.title.split(' ')[0]);
	expect(found.results).toContainEqual({ name: course.title, value: course.id });
}, 60_000);

it('the enrollment picker lists "student — course (status)" newest first and searches by student and course', async () => {
	const words: Record<string, string> = { active: 'in progress', completed: 'completed', withdrawn: 'withdrawn', expired: 'expired' };
	const label = (e: Named) => `${e.student.name} — ${e.course.title} (${words[e.status]})`;
	const newest = (await api<{ data: Named[] }>('/enrollments?sort=-created_at&expand=student,course&per_page=50')).data;
	const opened = await pick('lmsEnrollments', 'parameters.enrollment', 'searchEnrollments');
	expect(opened.results).toEqual(newest.map((e) => ({ name: label(e), value: e.id })));

	const [latest] = newest;
	const byStudent = await pick('lmsEnrollments', 'parameters.enrollment', 'searchEnrollments', latest.student.name.split(' ').pop()!.slice(0, 4));
	expect(byStudent.results[0]).toEqual({ name: label(latest), value: latest.id });
	const byCourse = await pick('lmsEnrollments', 'parameters.enrollment', 'searchEnrollments', latest.course.title.split(' ')[0]);
	expect(byCourse.results[0]).toEqual({ name: label(latest), value: latest.id });
	for (const result of byCourse.results) expect(result.name).toMatch(/^.+ — .+ \((in progress|completed|withdrawn|expired)\)$/);
}, 60_000);

it('the certificate picker searches by student e-mail, and a verification code typed from paper finds its certificate in a workflow', async () => {
	const found = await pick('lmsCertificates', 'parameters.certificate', 'searchCertificates', checked.student.email);
	expect(found.results.map((r) => r.value)).toContain(checked.id);
	const shown = found.results.find((r) => r.value === checked.id)!;
	expect(shown.name).toMatch(new RegExp(`^${checked.student.name} — ${checked.course.title} \\((valid|expired)`));

	await n8n.runManually(CHECK_WORKFLOW, 'Start');
	const [execution] = await n8n.finishedExecutions(CHECK_WORKFLOW, 1, 60_000, 'the certificate check');
	expect(execution.status).toBe('success');
	const { student: _student, course: _course, ...certificate } = checked;
	expect(execution.run.nodes['Certificate by code'].items).toEqual([certificate]);
}, 120_000);
