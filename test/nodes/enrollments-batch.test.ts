/**
 * LMS Enrollments → Create on many input items (SPEC §18), run by n8n-core's WorkflowExecute
 * against the real server: up to 100 items per batch request, the output item for item what one
 * request per item gives (records, pairing, Continue On Fail), and every write carrying an
 * Idempotency-Key made from the execution, the node and the item(s), so that a retry of the same
 * execution — n8n's Retry On Fail after a lost answer — never enrolls twice.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import nock from 'nock';
import type { IDataObject } from 'n8n-workflow';

import { LmsEnrollments } from '../../nodes/LmsEnrollments/LmsEnrollments.node';
import { Enrollment, Organization, User } from '../../server/src/db';
import { credentials as mockCredentials, lmsApi, problem } from '../helpers/lms-api-mock';
import { runNode } from '../helpers/n8n';
import { startTestServer, type TestServer } from '../helpers/server';

const rl = (mode: string, value: string) => ({ __rl: true, mode, value });

let server: TestServer;
let apiKey: string;
let organizationId: string;
let courseIds: string[];
const as = (baseUrl = server.baseUrl) => ({ credentials: { baseUrl, apiKey } });

async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: IDataObject }> {
	const response = await fetch(`${server.baseUrl}/api/v1${path}`, {
		method: init.method ?? 'GET',
		headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
		body: init.body === undefined ? undefined : JSON.stringify(init.body),
	});
	return { status: response.status, body: (await response.json()) as IDataObject };
}

let serial = 0;
async function newStudents(count: number): Promise<User[]> {
	serial += 1;
	const made: User[] = [];
	for (let i = 0; i < count; i++) {
		made.push(await User.create({ organizationId, name: `Batch ${serial}-${i}`, email: `batch${serial}-${i}@n8n-batch.example`, role: 'student', passwordHash: null }));
	}
	return made;
}

const logged = (route: string) => server.requests({ route, method: 'POST' });

const create = (extra: IDataObject = {}) => ({
	operation: 'create',
	student: rl('id', '={{ $json.student }}'),
	course: rl('id', '={{ $json.course }}'),
	ifAlreadyEnrolled: 'fail',
	...extra,
});

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	apiKey = (await server.createKey('acme', ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments'], 'n8n batch')).key;
	organizationId = (await Organization.findOne({ where: { slug: 'acme' } }))!.id;
	courseIds = ((await api('/courses?per_page=100')).body.data as Array<{ id: string }>).map((c) => c.id);
}, 120_000);

afterAll(async () => {
	await server?.stop();
});

describe('250 input items', () => {
	let students: User[];
	let run: Awaited<ReturnType<typeof runNode>>;
	let batches: number;
	let singles: number;

	beforeAll(async () => {
		students = await newStudents(250);
		const before = [await logged('/api/v1/enrollments/batch'), await logged('/api/v1/enrollments')];
		run = await runNode(new LmsEnrollments(), create(), {
			...as(),
			items: students.map((s) => ({ student: s.id, course: courseIds[0] })),
			executionId: 'exec-250',
		});
		batches = (await logged('/api/v1/enrollments/batch')) - before[0];
		singles = (await logged('/api/v1/enrollments')) - before[1];
	}, 120_000);

	it('take 3 requests (100, 100, 50)', () => {
		expect(run.error).toBeUndefined();
		expect([batches, singles]).toEqual([3, 0]);
	});

	it('give 250 output items, each paired with its input item and equal to the enrollment the API serves', async () => {
		expect(run.items).toHaveLength(250);
		expect(run.items.map((item) => item.pairedItem)).toEqual(students.map((_, i) => ({ item: i })));
		expect(run.items.map((item) => item.json.student_id)).toEqual(students.map((s) => s.id));
		for (const item of run.items) {
			expect(item.json).toEqual((await api(`/enrollments/${String(item.json.id)}`)).body);
		}
		expect(await Enrollment.count({ where: { studentId: students.map((s) => s.id) } })).toBe(250);
	});

	it('run again in the same execution (a retry): the LMS replays every batch, nothing is enrolled twice, the output is the same', async () => {
		const before = await logged('/api/v1/enrollments/batch');
		const again = await runNode(new LmsEnrollments(), create(), {
			...as(),
			items: students.map((s) => ({ student: s.id, course: courseIds[0] })),
			executionId: 'exec-250',
		});
		expect(again.error).toBeUndefined();
		expect(again.items).toEqual(run.items);
		expect((await logged('/api/v1/enrollments/batch')) - before).toBe(3);
		expect(await Enrollment.count({ where: { studentId: students.map((s) => s.id) } })).toBe(250);
	});

	it('in another execution with Return Existing (a re-run): the same 3 requests and no read per item, each existing enrollment output as the API serves it', async () => {
		const before = [await logged('/api/v1/enrollments/batch'), await server.requests({ route: '/api/v1/enrollments/:id', method: 'GET' })];
		const rerun = await runNode(new LmsEnrollments(), create({ ifAlreadyEnrolled: 'returnExisting' }), {
			...as(),
			items: students.map((s) => ({ student: s.id, course: courseIds[0] })),
			executionId: 'exec-250-rerun',
		});
		expect(rerun.error).toBeUndefined();
		expect([(await logged('/api/v1/enrollments/batch')) - before[0], (await server.requests({ route: '/api/v1/enrollments/:id', method: 'GET' })) - before[1]]).toEqual([3, 0]);
		expect(rerun.items).toEqual(run.items);
	});

	it('in another execution the keys are others: the LMS answers already enrolled, item by item', async () => {
		const other = await runNode(new LmsEnrollments(), create(), {
			...as(),
			items: students.slice(0, 3).map((s) => ({ student: s.id, course: courseIds[0] })),
			executionId: 'exec-250-other',
			continueOnFail: true,
		});
		expect(other.items.map((item) => String(item.json.error))).toEqual(
			students.slice(0, 3).map((s) => expect.stringContaining(`Student ${s.id} is already enrolled`)),
		);
	});
});

describe('partial failure', () => {
	it('Continue On Fail: a failed item yields its error item (the message one request would give), the others their records, in order', async () => {
		const [a, b, c, d] = await newStudents(4);
		const existing = (await api('/enrollments', { method: 'POST', body: { student_id: d.id, course_id: courseIds[1] } })).body;
		const admin = ((await api('/users?role=admin&per_page=1')).body.data as Array<{ id: string }>)[0].id;
		const inputs = [
			{ student: a.id, course: courseIds[1] },
			{ student: admin, course: courseIds[1] },
			{ student: '', course: courseIds[1] },
			{ student: b.id, course: 'crs_doesNotExist0' },
			{ student: d.id, course: courseIds[1] },
			{ student: a.id, course: courseIds[1] },
			{ student: c.id, course: courseIds[1] },
		];
		const { items, error } = await runNode(new LmsEnrollments(), create(), { ...as(), items: inputs, continueOnFail: true });
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual(inputs.map((_, i) => ({ item: i })));
		expect(items.map((item) => (item.json.error === undefined ? String(item.json.student_id) : 'error'))).toEqual([a.id, 'error', 'error', 'error', 'error', 'error', c.id]);

		// Each error item says what Create on that one item says.
		for (const index of [1, 2, 3, 4]) {
			const single = await runNode(new LmsEnrollments(), create(), { ...as(), items: [inputs[index]], continueOnFail: true });
			expect([index, items[index].json]).toEqual([index, single.items[0].json]);
		}
		expect(items[4].json.error).toContain(String(existing.id));
		expect(items[5].json.error).toContain(`Student ${a.id} is already enrolled`);
		expect(items[5].json.error).toContain(String(items[0].json.id));
	});

	it('If Already Enrolled → Return Existing: already enrolled items output the enrollment they have', async () => {
		const [a, b] = await newStudents(2);
		const existing = (await api('/enrollments', { method: 'POST', body: { student_id: a.id, course_id: courseIds[2] } })).body;
		const { items, error } = await runNode(new LmsEnrollments(), create({ ifAlreadyEnrolled: 'returnExisting' }), {
			...as(),
			items: [{ student: a.id, course: courseIds[2] }, { student: b.id, course: courseIds[2] }],
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual((await api(`/enrollments/${String(existing.id)}`)).body);
		expect(items[1].json).toMatchObject({ student_id: b.id, course_id: courseIds[2], status: 'active' });
	});

	it('without Continue On Fail, a bad item in the middle of 150: the error names it (index, student, course, the batch request) and the items done before and with it', async () => {
		const students = await newStudents(149);
		const inputs = students.map((s) => ({ student: s.id, course: courseIds[4] }));
		inputs.splice(120, 0, { student: 'usr_nobodyInTheMiddle', course: courseIds[4] });
		const { error } = await runNode(new LmsEnrollments(), create(), { ...as(), items: inputs });
		expect(error?.message).toBe("Student usr_nobodyInTheMiddle was not found in the key's organization: check the Student ID");
		expect(error?.context?.itemIndex).toBe(120);
		const made = await Enrollment.findAll({ where: { studentId: students.map((s) => s.id) }, order: [['createdAt', 'ASC'], ['id', 'ASC']] });
		expect(made).toHaveLength(149);
		const ids = new Map(made.map((e) => [e.studentId, e.id]));
		const description = String(error?.description);
		expect(description).toContain(`Input item 120 (student_id usr_nobodyInTheMiddle, course_id ${courseIds[4]}), sent as item 20 of POST ${server.baseUrl}/api/v1/enrollments/batch.`);
		expect(description).toContain(`Done before it: input items 0–119 (120 records: ${ids.get(students[0].id)}, `);
		expect(description).toContain(`${ids.get(students[119].id)}).`);
		expect(description).toContain(`Sent in the same request and done too: input items 121–149 (29 records: ${ids.get(students[120].id)}`);
		expect(description).toContain('Return Existing Enrollment');
	});

	it('without Continue On Fail the node stops at the first failed item and names it', async () => {
		const [a, b] = await newStudents(2);
		const { error } = await runNode(new LmsEnrollments(), create(), {
			...as(),
			items: [{ student: a.id, course: courseIds[3] }, { student: 'usr_nobodyAtAll01', course: courseIds[3] }, { student: b.id, course: courseIds[3] }],
		});
		expect(error?.message).toBe("Student usr_nobodyAtAll01 was not found in the key's organization: check the Student ID");
		expect(error?.context?.itemIndex).toBe(1);
	});

	it('version 1 batches too', async () => {
		const students = await newStudents(3);
		const before = await logged('/api/v1/enrollments/batch');
		const { items } = await runNode(
			new LmsEnrollments(),
			{ operation: 'create', studentId: '={{ $json.student }}', courseId: courseIds[0], ifAlreadyEnrolled: 'fail' },
			{ ...as(), items: students.map((s) => ({ student: s.id })), typeVersion: 1 },
		);
		expect(items.map((item) => item.json.student_id)).toEqual(students.map((s) => s.id));
		expect((await logged('/api/v1/enrollments/batch')) - before).toBe(1);
	});
});

describe('Retry On Fail after the answer was lost', () => {
	/**
	 * A proxy in front of the server that lets the first request for `path` through to the server
	 * (which commits it) and then cuts the connection instead of passing the answer on.
	 */
	async function cuttingProxy(path: string): Promise<{ url: string; cut: () => number; close: () => Promise<void> }> {
		let cut = 0;
		const proxy: Server = createServer((req, res) => {
			const target = new URL(server.baseUrl);
			const upstream = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
				if (req.url === path && cut === 0) {
					cut += 1;
					answer.resume();
					answer.on('end', () => req.socket.destroy());
					return;
				}
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			});
			req.pipe(upstream);
		});
		await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
		return {
			url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
			cut: () => cut,
			close: () => new Promise((resolve) => proxy.close(() => resolve())),
		};
	}

	it('the retry gets the batch the server committed: every item enrolled once, every record output', async () => {
		const students = await newStudents(120);
		const proxy = await cuttingProxy('/api/v1/enrollments/batch');
		try {
			const { items, error } = await runNode(new LmsEnrollments(), create(), {
				...as(proxy.url),
				items: students.map((s) => ({ student: s.id, course: courseIds[0] })),
				executionId: 'exec-cut',
				retryOnFail: { maxTries: 2, waitBetweenTries: 0 },
			});
			expect(proxy.cut()).toBe(1);
			expect(error).toBeUndefined();
			expect(items.map((item) => [item.json.student_id, item.pairedItem])).toEqual(students.map((s, i) => [s.id, { item: i }]));
			expect(await Enrollment.count({ where: { studentId: students.map((s) => s.id) } })).toBe(120);
		} finally {
			await proxy.close();
		}
	});
});

describe('the Idempotency-Key every write sends (nock)', () => {
	beforeAll(() => nock.disableNetConnect());
	afterEach(() => nock.cleanAll());
	afterAll(() => {
		nock.enableNetConnect();
		nock.restore();
	});

	const enrollment = (id: string, student: string) => ({ id, student_id: student, course_id: 'crs_1', status: 'active', progress_percent: 0 });

	it('a batch: the same key on the retry of the same execution, another for another batch or execution', async () => {
		const keys: string[] = [];
		const batchOf = (count: number) => ({
			data: Array.from({ length: count }, (_, i) => ({ index: i, status: 201, body: enrollment(`enr_${i}`, `usr_${i}`) })),
		});
		lmsApi()
			.post('/api/v1/enrollments/batch')
			.times(4)
			.reply(function (_uri, body) {
				keys.push(String(this.req.headers['idempotency-key']));
				return [200, batchOf((body as { items: unknown[] }).items.length)];
			});
		const inputs = Array.from({ length: 150 }, (_, i) => ({ student: `usr_${i}`, course: 'crs_1' }));
		await runNode(new LmsEnrollments(), create(), { credentials: mockCredentials, items: inputs, executionId: '4711' });
		await runNode(new LmsEnrollments(), create(), { credentials: mockCredentials, items: inputs, executionId: '4711' });
		expect(keys).toHaveLength(4);
		expect(keys[0]).toMatch(/^n8n:4711:node-under-test:0:i0-99:POST \/enrollments\/batch$/);
		expect(keys[1]).toMatch(/^n8n:4711:node-under-test:0:i100-149:POST \/enrollments\/batch$/);
		expect(keys.slice(2)).toEqual(keys.slice(0, 2));
	});

	it('a single write: Retry On Fail sends the same key again; a second item or a PATCH has its own', async () => {
		const keys: string[] = [];
		lmsApi()
			.post('/api/v1/enrollments')
			.reply(function () {
				keys.push(String(this.req.headers['idempotency-key']));
				return problem(500, 'internal_error', 'Something went wrong on our side.');
			})
			.post('/api/v1/enrollments')
			.reply(function () {
				keys.push(String(this.req.headers['idempotency-key']));
				return [201, enrollment('enr_1', 'usr_1')];
			});
		const { items, error } = await runNode(new LmsEnrollments(), create(), {
			credentials: mockCredentials,
			items: [{ student: 'usr_1', course: 'crs_1' }],
			executionId: '4712',
			retryOnFail: { maxTries: 2, waitBetweenTries: 0 },
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.id)).toEqual(['enr_1']);
		expect(keys).toEqual(['n8n:4712:node-under-test:0:i0:POST /enrollments', 'n8n:4712:node-under-test:0:i0:POST /enrollments']);

		lmsApi()
			.patch('/api/v1/enrollments/enr_1')
			.times(2)
			.reply(function () {
				keys.push(String(this.req.headers['idempotency-key']));
				return [200, enrollment('enr_1', 'usr_1')];
			});
		await runNode(new LmsEnrollments(), { operation: 'update', enrollment: rl('id', 'enr_1'), change: 'progress', progressPercent: 10 }, {
			credentials: mockCredentials,
			items: [{}, {}],
			executionId: '4712',
		});
		expect(keys.slice(2)).toEqual(['n8n:4712:node-under-test:0:i0:PATCH /enrollments/enr_1', 'n8n:4712:node-under-test:0:i1:PATCH /enrollments/enr_1']);
	});

	it('a 409 idempotency_key_in_use (a retry while the first try still runs) is waited out, and its answer used', async () => {
		const scope = lmsApi()
			.post('/api/v1/enrollments')
			.reply(...problem(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still running.', {}, { 'Retry-After': '1' }))
			.post('/api/v1/enrollments')
			.reply(201, enrollment('enr_1', 'usr_1'), { 'Idempotent-Replayed': 'true' });
		const { items, error } = await runNode(new LmsEnrollments(), create(), {
			credentials: mockCredentials,
			items: [{ student: 'usr_1', course: 'crs_1' }],
			executionId: '4713',
		});
		expect(error).toBeUndefined();
		expect(items[0].json.id).toBe('enr_1');
		expect(scope.isDone()).toBe(true);
	});

	it('an LMS without if_exists (400 naming it): the batch goes again without it, and Return Existing reads what exists', async () => {
		const bodies: unknown[] = [];
		const scope = lmsApi()
			.post('/api/v1/enrollments/batch')
			.reply(function (_uri, body) {
				bodies.push(body);
				return problem(400, 'invalid_request', 'Unknown field if_exists.', { errors: [{ param: 'if_exists', code: 'unknown_field', message: 'Unknown field if_exists: send only items.' }] });
			})
			.post('/api/v1/enrollments/batch')
			.reply(function (_uri, body) {
				bodies.push(body);
				return [200, { data: [{ index: 0, status: 201, body: enrollment('enr_1', 'usr_1') }, { index: 1, status: 409, body: { code: 'already_enrolled', enrollment_id: 'enr_2', status: 409 } }] }];
			})
			.get('/api/v1/enrollments/enr_2')
			.reply(200, enrollment('enr_2', 'usr_2'));
		const { items, error } = await runNode(new LmsEnrollments(), create({ ifAlreadyEnrolled: 'returnExisting' }), {
			credentials: mockCredentials,
			items: [{ student: 'usr_1', course: 'crs_1' }, { student: 'usr_2', course: 'crs_1' }],
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.id)).toEqual(['enr_1', 'enr_2']);
		expect(bodies.map((body) => Object.keys(body as object))).toEqual([['items', 'if_exists'], ['items']]);
		expect(scope.isDone()).toBe(true);
	});

	it('an LMS without batches (405 for the batch path): one POST per item, the same output', async () => {
		const scope = lmsApi()
			.post('/api/v1/enrollments/batch')
			.reply(...problem(405, 'method_not_allowed', 'This path accepts GET, PATCH only.', {}, { Allow: 'GET, PATCH' }))
			.post('/api/v1/enrollments', { student_id: 'usr_1', course_id: 'crs_1' })
			.reply(201, enrollment('enr_1', 'usr_1'))
			.post('/api/v1/enrollments', { student_id: 'usr_2', course_id: 'crs_1' })
			.reply(...problem(422, 'student_not_found', 'No user with this student_id exists in the organization.'));
		const { items } = await runNode(new LmsEnrollments(), create(), {
			credentials: mockCredentials,
			items: [{ student: 'usr_1', course: 'crs_1' }, { student: 'usr_2', course: 'crs_1' }],
			continueOnFail: true,
		});
		expect(items.map((item) => item.json.id ?? item.json.error)).toEqual(['enr_1', "Student usr_2 was not found in the key's organization: check the Student ID"]);
		expect(scope.isDone()).toBe(true);
	});

	it('no execution id (outside an execution): no key is sent', async () => {
		let sent: unknown = 'unset';
		lmsApi()
			.post('/api/v1/enrollments')
			.reply(function () {
				sent = this.req.headers['idempotency-key'];
				return [201, enrollment('enr_1', 'usr_1')];
			});
		await runNode(new LmsEnrollments(), create(), { credentials: mockCredentials, items: [{ student: 'usr_1', course: 'crs_1' }] });
		expect(sent).toBeUndefined();
	});
});
