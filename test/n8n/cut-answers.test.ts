/**
 * Lost answers inside a real n8n 2.41 (SPEC §18): LMS Enrollments → Create on 250 items behind a
 * proxy that lets the LMS commit a batch and then drops the connection without its answer. Retry
 * On Fail runs the node again in the same execution; the batches it sends again carry the same
 * Idempotency-Keys, so the LMS answers them from its first answer instead of refusing 100 people
 * as already enrolled, and the execution ends with every person enrolled exactly once.
 */
import { Course, Organization, User } from '../../server/src/db';
import { cutFirstAnswerOfBatches, startAnswerCuttingProxy, type AnswerCuttingProxy } from '../helpers/answer-cutting-proxy';
import type { TestServer } from '../helpers/server';
import { bulkEnrollWorkflow, ENROLL_NODE } from './bulk-enroll';
import { lmsWithN8n, type LmsWithN8n } from './lms-with-n8n';
import type { N8nHome } from './n8n';

const CREDENTIAL = 'lmsRealCutCred01';
const PEOPLE = 250;

let fixture: LmsWithN8n;
let server: TestServer;
let key: string;
let proxy: AnswerCuttingProxy;
let home: N8nHome;

async function api(path: string): Promise<Record<string, unknown>> {
	const response = await fetch(`${server.baseUrl}/api/v1${path}`, { headers: { Authorization: `Bearer ${key}` } });
	if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
	return (await response.json()) as Record<string, unknown>;
}

beforeAll(async () => {
	fixture = await lmsWithN8n({
		scopes: ['read:enrollments', 'write:enrollments'],
		credentialId: CREDENTIAL,
		label: 'real n8n cut answers',
		// n8n reaches the LMS through a proxy that loses the answers to the 2nd and 3rd batch
		// (items 100–199 and 200–249) the first time.
		baseUrl: async (lms) => {
			proxy = await startAnswerCuttingProxy({ target: lms.baseUrl, cut: cutFirstAnswerOfBatches('/api/v1/enrollments/batch', [100, 200]) });
			return proxy.url;
		},
	});
	({ server, key, home } = fixture);
}, 600_000);

afterAll(async () => {
	await proxy?.close();
	await fixture?.close();
});

it('answers cut after the LMS committed: Retry On Fail ends with each of 250 people enrolled once, every item paired', async () => {
	const acme = (await Organization.findOne({ where: { slug: 'acme' } }))!;
	const course = await Course.create({ organizationId: acme.id, title: 'Onboarding (cut answers)', description: '', status: 'published', publishedAt: new Date() });
	const students: string[] = [];
	for (let i = 0; i < PEOPLE; i++) {
		students.push((await User.create({ organizationId: acme.id, name: `Cut ${i}`, email: `cut${i}@real-n8n-cut.example`, role: 'student', passwordHash: null })).id);
	}
	const workflow = bulkEnrollWorkflow({ id: 'lmsRealCutAns001', credentialId: CREDENTIAL, course: course.id, students, maxTries: 3 });
	await home.importWorkflow(workflow);

	const run = await home.execute(String(workflow.id));

	expect(run.error).toBeUndefined();
	const enroll = run.nodes[ENROLL_NODE];
	expect(enroll.error).toBeUndefined();
	expect(enroll.items).toHaveLength(PEOPLE);
	expect(enroll.paired).toEqual(students.map((_, item) => expect.objectContaining({ item })));
	expect(enroll.items.map((item) => [item.student_id, item.course_id])).toEqual(students.map((student) => [student, course.id]));
	const ids = enroll.items.map((item) => String(item.id));
	expect(new Set(ids).size).toBe(PEOPLE);

	// The two answers really were lost after the LMS committed (the proxy saw the 200s)…
	const batches = proxy.requests.filter((request) => request.path === '/api/v1/enrollments/batch');
	expect(batches.filter((request) => request.cut).map((request) => [request.status, request.idempotencyKey?.match(/:i\d+-\d+:/)?.[0]])).toEqual([
		[200, ':i100-199:'],
		[200, ':i200-249:'],
	]);
	// …and n8n tried three times: 1 + 2 + 3 batch requests, the second and third from the LMS's store.
	expect(batches.map((request) => [request.idempotencyKey?.match(/:i\d+-\d+:/)?.[0], request.replayed])).toEqual([
		[':i0-99:', false],
		[':i100-199:', false],
		[':i0-99:', true],
		[':i100-199:', true],
		[':i200-249:', false],
		[':i0-99:', true],
		[':i100-199:', true],
		[':i200-249:', true],
	]);

	// The LMS holds exactly those 250 enrollments in the course, no more.
	const listed: string[] = [];
	for (let page = 1; page <= 3; page++) {
		listed.push(...((await api(`/enrollments?course_id=${course.id}&per_page=100&page=${page}`)).data as Array<{ id: string }>).map((e) => e.id));
	}
	expect(listed.sort()).toEqual([...ids].sort());
});
