/**
 * The example workflows under examples/ are what people import first: their LMS nodes must use
 * parameters the nodes define and make the requests the examples promise.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import nock from 'nock';
import type { INode, INodeParameters } from 'n8n-workflow';

import { LmsCertificates } from '../../nodes/LmsCertificates/LmsCertificates.node';
import { LmsCourses } from '../../nodes/LmsCourses/LmsCourses.node';
import { LmsEnrollments } from '../../nodes/LmsEnrollments/LmsEnrollments.node';
import { LmsGroups } from '../../nodes/LmsGroups/LmsGroups.node';
import { LmsInstantTrigger } from '../../nodes/LmsInstantTrigger/LmsInstantTrigger.node';
import { LmsTrigger } from '../../nodes/LmsTrigger/LmsTrigger.node';
import { LmsUsers } from '../../nodes/LmsUsers/LmsUsers.node';
import { nodeTypeAt, runNode, type AnyNodeType, type RunNodeResult } from '../helpers/n8n';
import { credentials, listPage, lmsApi, users } from '../helpers/lms-api-mock';
import { startTestServer, type TestServer } from '../helpers/server';

const examplesDir = join(__dirname, '..', '..', 'examples');
const NODE_TYPES: Record<string, AnyNodeType> = Object.fromEntries(
	[new LmsUsers(), new LmsGroups(), new LmsCourses(), new LmsEnrollments(), new LmsCertificates(), new LmsTrigger(), new LmsInstantTrigger()].map((type) => [
		`n8n-nodes-lms.${type.description.name}`,
		type,
	]),
);

function example(file: string): { nodes: INode[]; connections: Record<string, unknown> } {
	return JSON.parse(readFileSync(join(examplesDir, file), 'utf8'));
}

/** An LMS node of an example, with the version it was saved with. */
function lmsNode(file: string, name: string): { type: AnyNodeType; parameters: INodeParameters; typeVersion: number } {
	const node = example(file).nodes.find((candidate) => candidate.name === name)!;
	return { type: NODE_TYPES[node.type], parameters: node.parameters, typeVersion: node.typeVersion };
}

// The real server listens on 127.0.0.1: only the nock cases are cut off from the network.
beforeAll(() => {
	nock.disableNetConnect();
	nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
});
afterEach(() => nock.cleanAll());
// restore(): the interceptor patches Node's http module, which later test files in this worker share.
afterAll(() => {
	nock.enableNetConnect();
	nock.restore();
});

describe.each(readdirSync(examplesDir).filter((file) => file.endsWith('.json')))('%s', (file) => {
	const workflow = example(file);
	const lmsNodes = workflow.nodes.filter((node) => node.type.startsWith('n8n-nodes-lms.'));

	it('uses LMS nodes that exist, with parameters they define', () => {
		expect(lmsNodes.length).toBeGreaterThan(0);
		for (const node of lmsNodes) {
			expect(NODE_TYPES[node.type]).toBeDefined();
			// The parameters of the version the workflow was saved with, as n8n opens it.
			const type = nodeTypeAt(NODE_TYPES[node.type], node.typeVersion);
			expect(type.description.version).toEqual(expect.anything());
			const defined = new Set(type.description.properties.map((property) => property.name));
			for (const parameter of Object.keys(node.parameters)) expect(defined).toContain(parameter);
		}
	});

	it('connects only nodes that exist', () => {
		const names = new Set(workflow.nodes.map((node) => node.name));
		for (const [source, outputs] of Object.entries(workflow.connections)) {
			expect(names).toContain(source);
			for (const output of (outputs as { main: Array<Array<{ node: string }>> }).main) {
				for (const target of output) expect(names).toContain(target.node);
			}
		}
	});
});

describe('enroll-new-hires.json', () => {
	it('finds the new hire by the email the webhook received', async () => {
		const { type, parameters, typeVersion } = lmsNode('enroll-new-hires.json', 'Find LMS user');
		const scope = lmsApi()
			.get('/api/v1/users')
			.query({ email: 'ada@example.com', role: 'student', page: '1', per_page: '1' })
			.reply(200, listPage(users(1, 1), 1, 1, 1));

		const { items } = await runNode(type, parameters, {
			credentials,
			typeVersion,
			items: [{ headers: {}, body: { email: 'ada@example.com' } }],
		});

		expect(items[0].json.id).toBe('usr_1');
		expect(scope.isDone()).toBe(true);
	});

	it('enrolls the user it found, returning the existing enrollment on a repeat', async () => {
		const { type, parameters, typeVersion } = lmsNode('enroll-new-hires.json', 'Enroll in onboarding');
		expect(parameters.ifAlreadyEnrolled).toBe('returnExisting');
		const scope = lmsApi()
			.post('/api/v1/enrollments', { student_id: 'usr_1', course_id: (parameters.courseId as string) })
			.reply(201, { id: 'enr_1', student_id: 'usr_1', course_id: parameters.courseId, status: 'active' });

		const { items } = await runNode(type, parameters, { credentials, typeVersion, items: users(1, 1) });

		expect(items[0].json.id).toBe('enr_1');
		expect(scope.isDone()).toBe(true);
	});
});

describe('certificates-this-week.json', () => {
	it('reads every certificate, then each student', async () => {
		const certificates = lmsNode('certificates-this-week.json', 'All certificates');
		lmsApi()
			.get('/api/v1/certificates')
			.query({ page: '1', per_page: '100' })
			.reply(200, listPage([{ id: 'cert_1', student_id: 'usr_1' }], 1, 100, 1));
		const { items } = await runNode(certificates.type, certificates.parameters, { credentials, typeVersion: certificates.typeVersion });
		expect(items.map((item) => item.json.id)).toEqual(['cert_1']);

		const student = lmsNode('certificates-this-week.json', 'Student');
		lmsApi().get('/api/v1/users/usr_1').reply(200, users(1, 1)[0]);
		const { items: students } = await runNode(student.type, student.parameters, {
			credentials,
			typeVersion: student.typeVersion,
			items: [items[0].json],
		});
		expect(students[0]).toMatchObject({ json: { id: 'usr_1' }, pairedItem: { item: 0 } });
	});
});

/**
 * The version-2 examples' LMS nodes, each run through n8n-core against the real server with the
 * items the node before it gives (the webhook's body, the trigger's event, the previous LMS node's
 * output). A reference to an earlier node (`$('Student').item`) reads the node's own input item
 * here, since each node runs alone; the real-n8n suite (test/n8n) runs the whole workflows.
 */
describe('version-2 examples against the real server', () => {
	let server: TestServer;
	let apiKey: string;
	const as = () => ({ credentials: { baseUrl: server.baseUrl, apiKey } });

	async function api(path: string): Promise<{ data: Array<Record<string, unknown>> } & Record<string, unknown>> {
		const response = await fetch(`${server.baseUrl}/api/v1${path}`, { headers: { Authorization: `Bearer ${apiKey}` } });
		return (await response.json()) as { data: Array<Record<string, unknown>> } & Record<string, unknown>;
	}

	/** Runs one LMS node of an example at the version it was saved with. */
	async function run(file: string, name: string, items: Array<Record<string, unknown>>, replace: Record<string, string> = {}): Promise<RunNodeResult> {
		const { type, parameters, typeVersion } = lmsNode(file, name);
		let text = JSON.stringify(parameters).replace(/\$\('[^']+'\)\.item\.json/g, '$json');
		for (const [placeholder, value] of Object.entries(replace)) text = text.split(placeholder).join(value);
		const result = await runNode(type, JSON.parse(text) as INodeParameters, { ...as(), typeVersion, items: items as never });
		expect(result.error).toBeUndefined();
		return result;
	}

	beforeAll(async () => {
		server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
		apiKey = (await server.createKey('acme', ['read:users', 'write:users', 'read:courses', 'read:enrollments', 'write:enrollments'], 'examples')).key;
	}, 120_000);

	afterAll(async () => {
		await server?.stop();
	});

	it('onboard-new-hire.json: a new hire unknown to the LMS is created and enrolled once, however often the webhook fires', async () => {
		const course = (await api('/courses?per_page=1')).data[0];
		const webhook = { headers: {}, body: { email: 'ada.onboard@example.com', name: 'Ada Onboard' } };
		const placeholder = { crs_REPLACE_WITH_ONBOARDING_COURSE_ID: String(course.id) };

		const made = await run('onboard-new-hire.json', 'Create or update LMS user', [webhook]);
		const [person] = (await api('/users?email=ada.onboard@example.com')).data;
		expect(made.items.map((item) => item.json)).toEqual([person]);
		expect(person).toMatchObject({ name: 'Ada Onboard', role: 'student', status: 'active' });
		const first = await run('onboard-new-hire.json', 'Enroll in onboarding', [made.items[0].json], placeholder);
		expect(first.items[0].json).toMatchObject({ student_id: person.id, course_id: course.id, status: 'active' });

		// HR resends, with the name corrected: the same person, updated, and the same enrollment.
		const again = await run('onboard-new-hire.json', 'Create or update LMS user', [{ headers: {}, body: { email: 'ADA.onboard@example.com', name: 'Ada K. Onboard' } }]);
		expect(again.items[0].json).toMatchObject({ id: person.id, name: 'Ada K. Onboard', email: 'ada.onboard@example.com' });
		const enrolledAgain = await run('onboard-new-hire.json', 'Enroll in onboarding', [again.items[0].json], placeholder);
		expect(enrolledAgain.items[0].json.id).toBe(first.items[0].json.id);
		expect((await api(`/enrollments?student_id=${String(person.id)}&course_id=${String(course.id)}`)).data).toHaveLength(1);
	});

	it("completion-to-crm.json: the completed enrollment's student and course, as the CRM record needs them", async () => {
		const enrollment = (await api('/enrollments?status=completed&per_page=1')).data[0];
		// What the Instant Trigger outputs for enrollment.completed: the enrollment plus the event's fields.
		const event = { ...enrollment, event_id: 'evt_example', event_type: 'enrollment.completed' };
		const student = await run('completion-to-crm.json', 'Student', [event]);
		expect(student.items[0].json).toEqual(await api(`/users/${enrollment.student_id}`));
		const course = await run('completion-to-crm.json', 'Course', [event]);
		expect(course.items[0].json).toEqual(await api(`/courses/${enrollment.course_id}`));
	});

	it('certificate-expiry-reminder.json: the certificates expiring in 30 days, then each student and course', async () => {
		const now = Date.now();
		const all: Array<Record<string, unknown>> = [];
		for (let page = 1; ; page++) {
			const { data } = await api(`/certificates?per_page=100&page=${page}`);
			all.push(...data);
			if (data.length < 100) break;
		}
		const expected = all
			.filter((c) => c.expires_at && Date.parse(String(c.expires_at)) > now && Date.parse(String(c.expires_at)) < now + 30 * 86_400_000)
			.map((c) => c.id);
		const expiring = await run('certificate-expiry-reminder.json', 'Expiring in 30 days', [{}]);
		expect(expected.length).toBeGreaterThan(0);
		expect(expiring.items.map((item) => item.json.id)).toEqual(expected);

		const certificates = expiring.items.map((item) => item.json as Record<string, unknown>);
		const students = await run('certificate-expiry-reminder.json', 'Student', certificates);
		expect(students.items.map((item) => item.json.id)).toEqual(certificates.map((c) => c.student_id));
		expect(students.items.map((item) => item.pairedItem)).toEqual(certificates.map((_c, item) => ({ item })));
		const courses = await run('certificate-expiry-reminder.json', 'Course', certificates);
		expect(courses.items.map((item) => item.json.id)).toEqual(certificates.map((c) => c.course_id));
	});
});
