/**
 * LMS Enrollments → Create on 250 items inside a real n8n 2.41 (SPEC §18): the package as users
 * install it sends them in 3 batch requests, each carrying an Idempotency-Key made from n8n's own
 * execution id and the node, and the output matches the API item for item, a refused item under
 * On Error → Continue included.
 */
import { Op } from 'sequelize';

import { IdempotencyKey, Organization, User } from '../../server/src/db';
import { lmsWithN8n, type LmsWithN8n } from './lms-with-n8n';
import { workflowFrom } from './n8n';

const CREDENTIAL = 'lmsRealBatchCr01';
/** The LMS Enrollments node's id in workflows/enroll-batch.json. */
const NODE_ID = '5b0c2f7e-2d1a-4a55-9d0e-7f1c3a9e0b04';

let lms: LmsWithN8n;
const api = (path: string) => lms.api(path);
/** Batch requests the server has answered. */
const batchRequests = () => lms.server.requests({ route: '/api/v1/enrollments/batch', method: 'POST' });

beforeAll(async () => {
	lms = await lmsWithN8n({ scopes: ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments'], credentialId: CREDENTIAL, label: 'real n8n batch' });
}, 600_000);

afterAll(async () => await lms?.close());

it('Create on 250 items: 3 batch requests keyed by the execution, the output the API item for item', async () => {
	const acme = (await Organization.findOne({ where: { slug: 'acme' } }))!;
	const students: string[] = [];
	for (let i = 0; i < 248; i++) {
		students.push((await User.create({ organizationId: acme.id, name: `Hire ${i}`, email: `hire${i}@real-n8n-batch.example`, role: 'student', passwordHash: null })).id);
	}
	const admin = ((await api('/users?role=admin&per_page=1')).data as Array<{ id: string }>)[0].id;
	// Two items the LMS refuses, one in the first batch and one in the second.
	const hires = [...students.slice(0, 7), admin, ...students.slice(7, 179), 'usr_nobodyHere00001', ...students.slice(179)];
	expect(hires).toHaveLength(250);
	const course = ((await api('/courses?per_page=1')).data as Array<{ id: string }>)[0].id;
	const before = await batchRequests();

	const workflow = workflowFrom('enroll-batch', { CREDENTIAL_ID: CREDENTIAL, COURSE_ID: course, HIRES_JSON: JSON.stringify({ hires: hires.map((student) => ({ student })) }) });
	await lms.home.importWorkflow(workflow);
	const run = await lms.home.execute(String(workflow.id));

	expect(run.error).toBeUndefined();
	const enroll = run.nodes['Enroll'];
	expect(enroll.items).toHaveLength(250);
	expect(enroll.paired).toEqual(hires.map((_, item) => expect.objectContaining({ item })));
	for (const [i, item] of enroll.items.entries()) {
		if (i === 7) {
			expect(String(item.error)).toContain(`User ${admin} is not a student`);
		} else if (i === 180) {
			expect(String(item.error)).toContain("Student usr_nobodyHere00001 was not found in the key's organization");
		} else {
			expect([i, item.student_id, item.course_id]).toEqual([i, hires[i], course]);
			expect(item).toEqual(await api(`/enrollments/${String(item.id)}`));
		}
	}

	expect((await batchRequests()) - before).toBe(3);
	// The keys n8n's execution gave the three batches: execution id, node id, run 0, the items.
	const keys = (await IdempotencyKey.findAll({ where: { organizationId: acme.id, key: { [Op.like]: `n8n:%:${NODE_ID}:%` } } })).map((row) => row.key);
	expect(keys.sort()).toEqual([
		expect.stringMatching(new RegExp(`^n8n:\\d+:${NODE_ID}:0:i0-99:POST /enrollments/batch$`)),
		expect.stringMatching(new RegExp(`^n8n:\\d+:${NODE_ID}:0:i100-199:POST /enrollments/batch$`)),
		expect.stringMatching(new RegExp(`^n8n:\\d+:${NODE_ID}:0:i200-249:POST /enrollments/batch$`)),
	]);
	expect(new Set(keys.map((k) => k.split(':')[1])).size).toBe(1);
});
