import nock from 'nock';

import { LmsEnrollments } from '../../nodes/LmsEnrollments/LmsEnrollments.node';
import { pinTypeVersion, runNode } from '../helpers/n8n';
import { credentials, lmsApi, problem } from '../helpers/lms-api-mock';

// Version 1's parameters: these tests go on proving that workflows saved with version 1 run unchanged.
pinTypeVersion(1);

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
// restore(): the interceptor patches Node's http module, which later test files in this worker share.
afterAll(() => {
	nock.enableNetConnect();
	nock.restore();
});

const enrollment = {
	id: 'enr_new',
	student_id: 'usr_1',
	course_id: 'crs_1',
	status: 'active',
	progress_percent: 0,
	enrolled_at: '2026-01-05T09:00:00.000Z',
	completed_at: null,
	created_at: '2026-01-05T09:00:00.000Z',
	updated_at: '2026-01-05T09:00:00.000Z',
};

const create = (ifAlreadyEnrolled = 'fail') => ({
	operation: 'create',
	studentId: 'usr_1',
	courseId: 'crs_1',
	ifAlreadyEnrolled,
});

describe('Create', () => {
	it('posts {student_id, course_id} as JSON and outputs the new enrollment', async () => {
		const scope = nock('http://lms.test', {
			reqheaders: { 'content-type': /^application\/json/, authorization: /^Bearer lms_/ },
		})
			.post('/api/v1/enrollments', { student_id: 'usr_1', course_id: 'crs_1' })
			.reply(201, enrollment, { Location: '/api/v1/enrollments/enr_new' });

		const { items, error } = await runNode(new LmsEnrollments(), create(), { credentials });

		expect(error).toBeUndefined();
		expect(items).toEqual([{ json: enrollment, pairedItem: { item: 0 } }]);
		expect(scope.isDone()).toBe(true);
	});

	it('enrolls each input item, mapping the IDs with expressions (several items: one batch request)', async () => {
		const scope = lmsApi()
			.post('/api/v1/enrollments/batch', {
				items: [
					{ student_id: 'usr_1', course_id: 'crs_9' },
					{ student_id: 'usr_2', course_id: 'crs_9' },
				],
			})
			.reply(200, {
				data: [
					{ index: 0, status: 201, body: { ...enrollment, id: 'enr_a' } },
					{ index: 1, status: 201, body: { ...enrollment, id: 'enr_b', student_id: 'usr_2' } },
				],
			});

		const { items } = await runNode(
			new LmsEnrollments(),
			{ operation: 'create', studentId: '={{ $json.user }}', courseId: 'crs_9', ifAlreadyEnrolled: 'fail' },
			{ credentials, items: [{ user: 'usr_1' }, { user: ' usr_2 ' }] },
		);

		expect(items.map((item) => [item.json.id, item.pairedItem])).toEqual([
			['enr_a', { item: 0 }],
			['enr_b', { item: 1 }],
		]);
		expect(scope.isDone()).toBe(true);
	});

	describe('when the student is already enrolled', () => {
		const conflict = problem(
			409,
			'already_enrolled',
			'This student is already enrolled in this course.',
			{ enrollment_id: 'enr_old' },
		);

		it('"Fail" stops with the existing enrollment and the option to change', async () => {
			lmsApi().post('/api/v1/enrollments').reply(...conflict);

			const { error } = await runNode(new LmsEnrollments(), create('fail'), { credentials });

			expect(error?.message).toBe(
				'Student usr_1 is already enrolled in course crs_1 (enrollment enr_old): set "If Already Enrolled" to "Return Existing Enrollment" to carry on instead of failing',
			);
			expect(error?.httpCode).toBe('409');
		});

		it('"Return Existing Enrollment" outputs the enrollment named by the 409', async () => {
			const existing = { ...enrollment, id: 'enr_old', progress_percent: 40 };
			const scope = lmsApi()
				.post('/api/v1/enrollments')
				.reply(...conflict)
				.get('/api/v1/enrollments/enr_old')
				.reply(200, existing);

			const { items, error } = await runNode(new LmsEnrollments(), create('returnExisting'), { credentials });

			expect(error).toBeUndefined();
			expect(items).toEqual([{ json: existing, pairedItem: { item: 0 } }]);
			expect(scope.isDone()).toBe(true);
		});

		it('"Return Existing Enrollment" still fails on other errors', async () => {
			lmsApi()
				.post('/api/v1/enrollments')
				.reply(...problem(422, 'course_not_published', 'The course is a draft.'));

			const { error } = await runNode(new LmsEnrollments(), create('returnExisting'), { credentials });

			expect(error?.message).toBe(
				'Course crs_1 is not published: publish it in the LMS first, or check the Course ID',
			);
		});
	});

	it.each([
		['student_not_found', "Student usr_1 was not found in the key's organization: check the Student ID"],
		[
			'not_a_student',
			'User usr_1 is not a student: only users with the student role can be enrolled, check the Student ID',
		],
		['course_not_found', "Course crs_1 was not found in the key's organization: check the Course ID"],
		['course_not_published', 'Course crs_1 is not published: publish it in the LMS first, or check the Course ID'],
	])('422 %s says which ID is wrong', async (code, message) => {
		lmsApi().post('/api/v1/enrollments').reply(...problem(422, code, `Server detail for ${code}.`));

		const { error } = await runNode(new LmsEnrollments(), create(), { credentials });

		expect(error?.message).toBe(message);
		expect(error?.description).toContain(`Server detail for ${code}.`);
	});

	it('insufficient_scope on create asks for write:enrollments', async () => {
		lmsApi()
			.post('/api/v1/enrollments')
			.reply(
				...problem(403, 'insufficient_scope', 'This API key lacks the write:enrollments scope.', {
					required_scope: 'write:enrollments',
				}),
			);

		const { error } = await runNode(new LmsEnrollments(), create(), { credentials });

		expect(error?.message).toMatch(/^The key lacks write:enrollments: /);
	});
});

describe('Get and Get Many', () => {
	it('gets one enrollment by ID', async () => {
		const scope = lmsApi().get('/api/v1/enrollments/enr_new').reply(200, enrollment);

		const { items } = await runNode(
			new LmsEnrollments(),
			{ operation: 'get', enrollmentId: 'enr_new' },
			{ credentials },
		);

		expect(items).toEqual([{ json: enrollment, pairedItem: { item: 0 } }]);
		expect(scope.isDone()).toBe(true);
	});
});
