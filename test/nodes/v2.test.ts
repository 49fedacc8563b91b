/**
 * Version 2's new parameters, modes and errors, one by one, against nock: the request each one
 * makes, and the sentence a person reads when it cannot work. The same operations run against the
 * real server in e2e-v2.test.ts.
 */
import nock from 'nock';

import { LmsCertificates } from '../../nodes/LmsCertificates/LmsCertificates.node';
import { LmsCourses } from '../../nodes/LmsCourses/LmsCourses.node';
import { LmsEnrollments } from '../../nodes/LmsEnrollments/LmsEnrollments.node';
import { LmsUsers } from '../../nodes/LmsUsers/LmsUsers.node';
import { runListSearch, runNode } from '../helpers/n8n';
import { credentials, listPage, lmsApi, problem, users } from '../helpers/lms-api-mock';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => {
	nock.enableNetConnect();
	nock.restore();
});

const rl = (mode: string, value: string) => ({ __rl: true, mode, value });
const DAY = 24 * 60 * 60 * 1000;

const enrollment = (status: string, progress = 0) => ({
	id: 'enr_abc123',
	student_id: 'usr_1',
	course_id: 'crs_1',
	status,
	progress_percent: progress,
});

describe('record pickers', () => {
	it.each([
		['list', 'usr_1'],
		['id', 'usr_1'],
	])('Users Get, mode %s: GET /users/{id}', async (mode, value) => {
		const scope = lmsApi().get('/api/v1/users/usr_1').reply(200, users(1, 1)[0]);
		const { items, error } = await runNode(new LmsUsers(), { operation: 'get', user: rl(mode, value) }, { credentials });
		expect(error).toBeUndefined();
		expect(items[0].json.id).toBe('usr_1');
		expect(scope.isDone()).toBe(true);
	});

	it('By Email looks the user up with users?email= and gets that user', async () => {
		const scope = lmsApi()
			.get('/api/v1/users')
			.query({ email: 'Ada@Example.com', per_page: '1' })
			.reply(200, listPage(users(7, 1), 1, 1, 1))
			.get('/api/v1/users/usr_7')
			.reply(200, users(7, 1)[0]);
		const { items } = await runNode(new LmsUsers(), { operation: 'get', user: rl('email', '={{ " Ada@Example.com " }}') }, { credentials });
		expect(items[0].json.id).toBe('usr_7');
		expect(scope.isDone()).toBe(true);
	});

	it('By Email with no such user fails saying so, before any other request', async () => {
		lmsApi().get('/api/v1/users').query({ email: 'nobody@example.com', per_page: '1' }).reply(200, listPage([], 1, 1, 0));
		const { error } = await runNode(
			new LmsEnrollments(),
			{ operation: 'create', student: rl('email', 'nobody@example.com'), course: rl('id', 'crs_1'), ifAlreadyEnrolled: 'fail' },
			{ credentials },
		);
		expect(error?.message).toBe('No LMS user has the email address nobody@example.com');
		expect(error?.description).toMatch(/Check the spelling, or create the user in the LMS first/);
	});

	it.each([
		['user', LmsUsers, 'user', 'crs_1', 'User "crs_1" is not an LMS user ID'],
		['course', LmsCourses, 'course', 'Data Privacy', 'Course "Data Privacy" is not an LMS course ID'],
		['certificate', LmsCertificates, 'certificate', 'enr_1', 'Certificate "enr_1" is not an LMS certificate ID'],
	] as const)('a %s ID of the wrong shape from an expression fails without a request', async (_kind, Type, name, value, message) => {
		// Typed in, n8n itself refuses it (the mode's regex); from an expression only the node can.
		await expect(runNode(new Type(), { operation: 'get', [name]: rl('id', value) }, { credentials })).rejects.toThrow(
			/workflow has issues/,
		);

		const { error } = await runNode(new Type(), { operation: 'get', [name]: rl('id', `={{ "${value}" }}`) }, { credentials });
		expect(error?.message).toBe(message);
		expect(error?.description).toMatch(/starts with (usr|crs|cert)_ followed by letters and digits/);
	});

	it('an empty picker names the field', async () => {
		const { error } = await runNode(new LmsCourses(), { operation: 'get', course: rl('id', '={{ "" }}') }, { credentials });
		expect(error?.message).toBe('Course is empty');
	});

	it('a plain string (an expression from an AI agent or an older node) is taken as the ID', async () => {
		const scope = lmsApi().get('/api/v1/courses/crs_9').reply(200, { id: 'crs_9', title: 'T' });
		const { items } = await runNode(new LmsCourses(), { operation: 'get', course: 'crs_9' }, { credentials });
		expect(items[0].json.id).toBe('crs_9');
		expect(scope.isDone()).toBe(true);
	});
});

describe('Get Many filters', () => {
	it('Users: Search, Email and Role go into the query', async () => {
		const scope = lmsApi()
			.get('/api/v1/users')
			.query({ email: 'a@b.c', role: 'student', search: 'ali', page: '1', per_page: '10' })
			.reply(200, listPage(users(1, 1), 1, 10, 1));
		await runNode(
			new LmsUsers(),
			{ operation: 'getAll', returnAll: false, limit: 10, filters: { email: 'a@b.c', role: 'student', search: ' ali ' } },
			{ credentials },
		);
		expect(scope.isDone()).toBe(true);
	});

	it('Courses: Search', async () => {
		const scope = lmsApi()
			.get('/api/v1/courses')
			.query({ search: 'priv', page: '1', per_page: '100' })
			.reply(200, listPage([{ id: 'crs_1' }], 1, 100, 1));
		const { items } = await runNode(new LmsCourses(), { operation: 'getAll', returnAll: true, filters: { search: 'priv' } }, { credentials });
		expect(items).toHaveLength(1);
		expect(scope.isDone()).toBe(true);
	});

	it('Enrollments: student By Email, course From List and status', async () => {
		const scope = lmsApi()
			.get('/api/v1/users')
			.query({ email: 'ada@example.com', per_page: '1' })
			.reply(200, listPage(users(3, 1), 1, 1, 1))
			.get('/api/v1/enrollments')
			.query({ status: 'completed', student_id: 'usr_3', course_id: 'crs_2', page: '1', per_page: '100' })
			.reply(200, listPage([enrollment('completed', 100)], 1, 100, 1));
		const { items, error } = await runNode(
			new LmsEnrollments(),
			{
				operation: 'getAll',
				returnAll: true,
				filters: { student: rl('email', 'ada@example.com'), course: rl('list', 'crs_2'), status: 'completed' },
			},
			{ credentials },
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(scope.isDone()).toBe(true);
	});

	it('Enrollments: an unset picker in Filters sends nothing', async () => {
		const scope = lmsApi()
			.get('/api/v1/enrollments')
			.query({ page: '1', per_page: '100' })
			.reply(200, listPage([], 1, 100, 0));
		await runNode(new LmsEnrollments(), { operation: 'getAll', returnAll: true, filters: { course: rl('list', '') } }, { credentials });
		expect(scope.isDone()).toBe(true);
	});

	it.each([
		['Expiring Within 30', { expiringWithin: 30 }, 0, 30],
		['Expired Since 7', { expiredSince: 7 }, -7, 0],
		['both', { expiringWithin: 30, expiredSince: 7 }, -7, 30],
	])('Certificates: %s days becomes expires_after/expires_before', async (_name, filters, fromDays, toDays) => {
		let query: Record<string, string> = {};
		const before = Date.now();
		const scope = lmsApi()
			.get('/api/v1/certificates')
			.query((q) => {
				query = q as Record<string, string>;
				return true;
			})
			.reply(200, listPage([], 1, 100, 0));
		await runNode(new LmsCertificates(), { operation: 'getAll', returnAll: true, filters }, { credentials });
		const after = Date.now();
		expect(scope.isDone()).toBe(true);
		expect(Object.keys(query).sort()).toEqual(['expires_after', 'expires_before', 'page', 'per_page']);
		const from = Date.parse(query.expires_after);
		const to = Date.parse(query.expires_before);
		expect(from).toBeGreaterThanOrEqual(before + fromDays * DAY);
		expect(from).toBeLessThanOrEqual(after + fromDays * DAY);
		expect(to).toBeGreaterThanOrEqual(before + toDays * DAY);
		expect(to).toBeLessThanOrEqual(after + toDays * DAY);
	});

	it('Certificates: student and course pickers', async () => {
		const scope = lmsApi()
			.get('/api/v1/certificates')
			.query({ student_id: 'usr_1', course_id: 'crs_1', page: '1', per_page: '100' })
			.reply(200, listPage([], 1, 100, 0));
		await runNode(
			new LmsCertificates(),
			{ operation: 'getAll', returnAll: true, filters: { student: rl('id', 'usr_1'), course: rl('id', 'crs_1') } },
			{ credentials },
		);
		expect(scope.isDone()).toBe(true);
	});

	it('Certificates: zero days is refused with what to enter', async () => {
		const { error } = await runNode(
			new LmsCertificates(),
			{ operation: 'getAll', returnAll: true, filters: { expiringWithin: 0 } },
			{ credentials },
		);
		expect(error?.message).toBe('Expiring Within must be a number of days above 0, not "0"');
	});
});

describe('Enrollments Update', () => {
	it.each([
		['progress', { progressPercent: 40 }, { progress_percent: 40 }],
		['complete', {}, { status: 'completed' }],
		['withdraw', {}, { status: 'withdrawn' }],
		['reactivate', {}, { status: 'active' }],
	])('%s sends PATCH %j', async (change, extra, body) => {
		const scope = lmsApi()
			.patch('/api/v1/enrollments/enr_abc123', body)
			.reply(200, enrollment('active', 40));
		const { items, error } = await runNode(
			new LmsEnrollments(),
			{ operation: 'update', enrollment: rl('id', 'enr_abc123'), change, ...extra },
			{ credentials },
		);
		expect(error).toBeUndefined();
		expect(items).toEqual([{ json: enrollment('active', 40), pairedItem: { item: 0 } }]);
		expect(scope.isDone()).toBe(true);
	});

	it('a progress outside 0–100 is refused before any request', async () => {
		const { error } = await runNode(
			new LmsEnrollments(),
			{ operation: 'update', enrollment: rl('id', 'enr_abc123'), change: 'progress', progressPercent: 101 },
			{ credentials },
		);
		expect(error?.message).toBe('Progress must be a whole number from 0 to 100, not 101');
	});

	it.each([
		['completed', 'withdrawn', 'withdraw', {}, 'Enrollment enr_abc123 is completed, and a completed enrollment is final: it cannot be withdrawn, reactivated or change progress. Leave it as it is, or filter Get Many on status Active before updating'],
		['withdrawn', 'withdrawn', 'progress', { progressPercent: 50 }, 'Enrollment enr_abc123 is withdrawn, so its progress cannot change: reactivate it first (Update → Change: Reactivate), then set the progress'],
		['expired', 'completed', 'complete', {}, 'Enrollment enr_abc123 is expired, so it cannot become completed: reactivate it first (Update → Change: Reactivate), then complete it'],
	])('409 invalid_transition from %s to %s says what state it is in and what to do', async (from, to, change, extra, message) => {
		lmsApi()
			.patch('/api/v1/enrollments/enr_abc123')
			.reply(...problem(409, 'invalid_transition', `An enrollment cannot go from ${from} to ${to}: …`, { from, to }));
		const { error } = await runNode(
			new LmsEnrollments(),
			{ operation: 'update', enrollment: rl('list', 'enr_abc123'), change, ...extra },
			{ credentials },
		);
		expect(error?.message).toBe(message);
		expect(error?.description).toContain(`An enrollment cannot go from ${from} to ${to}`);
		expect(error?.httpCode).toBe('409');
	});

	it('Create with pickers posts the resolved IDs and returns the existing enrollment when asked', async () => {
		const scope = lmsApi()
			.post('/api/v1/enrollments', { student_id: 'usr_1', course_id: 'crs_1' })
			.reply(...problem(409, 'already_enrolled', 'already', { enrollment_id: 'enr_abc123' }))
			.get('/api/v1/enrollments/enr_abc123')
			.reply(200, enrollment('active'));
		const { items } = await runNode(
			new LmsEnrollments(),
			{ operation: 'create', student: rl('list', 'usr_1'), course: rl('list', 'crs_1'), ifAlreadyEnrolled: 'returnExisting' },
			{ credentials },
		);
		expect(items[0].json.id).toBe('enr_abc123');
		expect(scope.isDone()).toBe(true);
	});
});

describe('list search', () => {
	it('sends the typed text as search and the token as the page, and hands back the next token', async () => {
		const scope = lmsApi()
			.get('/api/v1/users')
			.query({ search: 'ali', page: '2', per_page: '50' })
			.reply(200, listPage(users(51, 50), 2, 50, 120));
		const page = await runListSearch(new LmsUsers(), 'searchUsers', { credentials, filter: ' ali ', paginationToken: '2' });
		expect(page.results[0]).toEqual({ name: 'User 51 (user51@example.com)', value: 'usr_51' });
		expect(page.paginationToken).toBe('3');
		expect(scope.isDone()).toBe(true);
	});

	it('stops handing out tokens on the last page, and cuts the text to the API\'s 100 characters', async () => {
		const scope = lmsApi()
			.get('/api/v1/courses')
			.query({ search: 'x'.repeat(100), page: '3', per_page: '50' })
			.reply(200, listPage([{ id: 'crs_1', title: 'X' }], 3, 50, 101));
		const page = await runListSearch(new LmsCourses(), 'searchCourses', { credentials, filter: 'x'.repeat(150), paginationToken: '3' });
		expect(page).toEqual({ results: [{ name: 'X', value: 'crs_1' }], paginationToken: undefined });
		expect(scope.isDone()).toBe(true);
	});

	it('a key without read:users gets the scope named, not an empty picker', async () => {
		lmsApi()
			.get('/api/v1/users')
			.query(true)
			.reply(...problem(403, 'insufficient_scope', 'This API key lacks the read:users scope.', { required_scope: 'read:users' }));
		await expect(runListSearch(new LmsEnrollments(), 'searchStudents', { credentials })).rejects.toThrow(
			'The key lacks read:users: create a key with read:users in Settings → API Keys and paste it into the credential',
		);
	});
});
