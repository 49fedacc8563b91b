import nock from 'nock';

import { LmsCertificates } from '../../nodes/LmsCertificates/LmsCertificates.node';
import { LmsEnrollments } from '../../nodes/LmsEnrollments/LmsEnrollments.node';
import { LmsUsers } from '../../nodes/LmsUsers/LmsUsers.node';
import { pinTypeVersion, runNode } from '../helpers/n8n';
import { credentials, listPage, lmsApi, users } from '../helpers/lms-api-mock';

// Version 1's parameters: these tests go on proving that workflows saved with version 1 run unchanged.
pinTypeVersion(1);

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
// restore(): the interceptor patches Node's http module, which later test files in this worker share.
afterAll(() => {
	nock.enableNetConnect();
	nock.restore();
});

const ids = (items: Array<{ json: { id?: unknown } }>) => items.map((item) => item.json.id);

describe('Return All', () => {
	it('walks every page, 100 at a time, until page × per_page reaches total', async () => {
		const scope = lmsApi()
			.get('/api/v1/users')
			.query({ page: '1', per_page: '100' })
			.reply(200, listPage(users(1, 100), 1, 100, 250))
			.get('/api/v1/users')
			.query({ page: '2', per_page: '100' })
			.reply(200, listPage(users(101, 100), 2, 100, 250))
			.get('/api/v1/users')
			.query({ page: '3', per_page: '100' })
			.reply(200, listPage(users(201, 50), 3, 100, 250));

		const { items, error } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: true }, { credentials });

		expect(error).toBeUndefined();
		expect(items).toHaveLength(250);
		expect(ids(items).slice(0, 2)).toEqual(['usr_1', 'usr_2']);
		expect(ids(items).at(-1)).toBe('usr_250');
		expect(scope.isDone()).toBe(true);
	});

	it('stops after the last page when total is an exact multiple of the page size', async () => {
		const scope = lmsApi()
			.get('/api/v1/users')
			.query({ page: '1', per_page: '100' })
			.reply(200, listPage(users(1, 100), 1, 100, 200))
			.get('/api/v1/users')
			.query({ page: '2', per_page: '100' })
			.reply(200, listPage(users(101, 100), 2, 100, 200));

		const { items } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: true }, { credentials });

		expect(items).toHaveLength(200);
		expect(scope.isDone()).toBe(true); // and no request for page 3, or nock would have failed it
	});

	it('returns no items, and no error, when the list is empty', async () => {
		const scope = lmsApi()
			.get('/api/v1/users')
			.query({ page: '1', per_page: '100' })
			.reply(200, listPage([], 1, 100, 0));

		const { items, error } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: true }, { credentials });

		expect(error).toBeUndefined();
		expect(items).toEqual([]);
		expect(scope.isDone()).toBe(true);
	});

	it('stops at an empty page even if total still promises more (records deleted meanwhile)', async () => {
		lmsApi()
			.get('/api/v1/users')
			.query({ page: '1', per_page: '100' })
			.reply(200, listPage(users(1, 100), 1, 100, 300))
			.get('/api/v1/users')
			.query({ page: '2', per_page: '100' })
			.reply(200, listPage([], 2, 100, 300));

		const { items, error } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: true }, { credentials });

		expect(error).toBeUndefined();
		expect(items).toHaveLength(100);
	});

	it('sends the filters with every page', async () => {
		const filters = { student_id: 'usr_7', course_id: 'crs_3', status: 'completed' };
		const enrollments = (first: number, count: number) =>
			Array.from({ length: count }, (_, index) => ({ id: `enr_${first + index}` }));
		const scope = lmsApi()
			.get('/api/v1/enrollments')
			.query({ ...filters, page: '1', per_page: '100' })
			.reply(200, listPage(enrollments(1, 100), 1, 100, 130))
			.get('/api/v1/enrollments')
			.query({ ...filters, page: '2', per_page: '100' })
			.reply(200, listPage(enrollments(101, 30), 2, 100, 130));

		const { items } = await runNode(
			new LmsEnrollments(),
			{
				operation: 'getAll',
				returnAll: true,
				filters: { studentId: 'usr_7', courseId: ' crs_3 ', status: 'completed' },
			},
			{ credentials },
		);

		expect(items).toHaveLength(130);
		expect(scope.isDone()).toBe(true);
	});
});

describe('Limit', () => {
	it('asks for exactly the limit when it fits in one page', async () => {
		const scope = lmsApi()
			.get('/api/v1/users')
			.query({ page: '1', per_page: '7' })
			.reply(200, listPage(users(1, 7), 1, 7, 250));

		const { items } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: false, limit: 7 }, { credentials });

		expect(ids(items)).toEqual(['usr_1', 'usr_2', 'usr_3', 'usr_4', 'usr_5', 'usr_6', 'usr_7']);
		expect(scope.isDone()).toBe(true);
	});

	it('fetches only the pages it needs when the limit spans pages', async () => {
		const scope = lmsApi()
			.get('/api/v1/users')
			.query({ page: '1', per_page: '100' })
			.reply(200, listPage(users(1, 100), 1, 100, 1000))
			.get('/api/v1/users')
			.query({ page: '2', per_page: '100' })
			.reply(200, listPage(users(101, 100), 2, 100, 1000));

		const { items } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: false, limit: 150 }, { credentials });

		expect(items).toHaveLength(150);
		expect(ids(items).at(-1)).toBe('usr_150');
		expect(scope.isDone()).toBe(true);
	});

	it('returns fewer than the limit when there are fewer records', async () => {
		const scope = lmsApi()
			.get('/api/v1/users')
			.query({ page: '1', per_page: '50' })
			.reply(200, listPage(users(1, 3), 1, 50, 3));

		const { items } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: false, limit: 50 }, { credentials });

		expect(items).toHaveLength(3);
		expect(scope.isDone()).toBe(true);
	});

	it('keeps the filters on every page', async () => {
		const scope = lmsApi()
			.get('/api/v1/certificates')
			.query({ course_id: 'crs_1', page: '1', per_page: '100' })
			.reply(200, listPage(users(1, 100), 1, 100, 500))
			.get('/api/v1/certificates')
			.query({ course_id: 'crs_1', page: '2', per_page: '100' })
			.reply(200, listPage(users(101, 100), 2, 100, 500));

		const { items } = await runNode(
			new LmsCertificates(),
			{ operation: 'getAll', returnAll: false, limit: 120, filters: { courseId: 'crs_1', studentId: '' } },
			{ credentials },
		);

		expect(items).toHaveLength(120);
		expect(scope.isDone()).toBe(true);
	});

	it('sends only the filters that are set, with the API names', async () => {
		const scope = lmsApi()
			.get('/api/v1/users')
			.query({ email: 'Ada@Example.com', role: 'student', page: '1', per_page: '50' })
			.reply(200, listPage(users(1, 1), 1, 50, 1));

		const { items } = await runNode(
			new LmsUsers(),
			{ operation: 'getAll', returnAll: false, limit: 50, filters: { email: 'Ada@Example.com', role: 'student' } },
			{ credentials },
		);

		expect(items).toHaveLength(1);
		expect(scope.isDone()).toBe(true);
	});

	it('refuses a limit below 1 without calling the API', async () => {
		const { error } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: false, limit: 0 }, { credentials });
		expect(error?.message).toBe('Limit must be a whole number of at least 1');
	});
});

describe('output items', () => {
	it('pairs every record with the input item that asked for it', async () => {
		lmsApi()
			.get('/api/v1/users')
			.query({ role: 'admin', page: '1', per_page: '2' })
			.reply(200, listPage(users(1, 2), 1, 2, 2))
			.get('/api/v1/users')
			.query({ role: 'instructor', page: '1', per_page: '2' })
			.reply(200, listPage(users(3, 1), 1, 2, 1));

		const { items } = await runNode(
			new LmsUsers(),
			{ operation: 'getAll', returnAll: false, limit: 2, filters: { role: '={{ $json.role }}' } },
			{ credentials, items: [{ role: 'admin' }, { role: 'instructor' }] },
		);

		expect(items.map((item) => [item.json.id, item.pairedItem])).toEqual([
			['usr_1', { item: 0 }],
			['usr_2', { item: 0 }],
			['usr_3', { item: 1 }],
		]);
	});

	it('outputs a list that is not an LMS list as an error naming the Base URL', async () => {
		lmsApi().get('/api/v1/users').query(true).reply(200, '<html>not the LMS</html>', { 'Content-Type': 'text/html' });

		const { error } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: true }, { credentials });

		expect(error?.message).toContain('check the Base URL');
	});
});
