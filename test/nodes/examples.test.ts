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
import { LmsTrigger } from '../../nodes/LmsTrigger/LmsTrigger.node';
import { LmsUsers } from '../../nodes/LmsUsers/LmsUsers.node';
import { nodeTypeAt, runNode, type AnyNodeType } from '../helpers/n8n';
import { credentials, listPage, lmsApi, users } from '../helpers/lms-api-mock';

const examplesDir = join(__dirname, '..', '..', 'examples');
const NODE_TYPES: Record<string, AnyNodeType> = Object.fromEntries(
	[new LmsUsers(), new LmsCourses(), new LmsEnrollments(), new LmsCertificates(), new LmsTrigger()].map((type) => [
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

beforeAll(() => nock.disableNetConnect());
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
			.post('/api/v1/enrollments', { student_id: 'usr_1', course_id: String(parameters.courseId) })
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
