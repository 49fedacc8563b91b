/**
 * The From List pickers as n8n's editor calls them (the node's methods.listSearch on n8n-core's
 * LoadOptionsContext, with the typed text and the pagination token of the previous page),
 * against the real server's demo organization.
 */
import type { IDataObject } from 'n8n-workflow';

import { LMS_RECORD_KINDS } from '../../nodes/shared/locators';
import { LIST_SEARCH_PAGE_SIZE } from '../../nodes/shared/list-search';
import { LmsCertificates } from '../../nodes/LmsCertificates/LmsCertificates.node';
import { LmsCourses } from '../../nodes/LmsCourses/LmsCourses.node';
import { LmsEnrollments } from '../../nodes/LmsEnrollments/LmsEnrollments.node';
import { LmsUsers } from '../../nodes/LmsUsers/LmsUsers.node';
import { runListSearch } from '../helpers/n8n';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let apiKey: string;

const options = (extra: { filter?: string; paginationToken?: string } = {}) => ({
	credentials: { baseUrl: server.baseUrl, apiKey },
	...extra,
});

async function api(path: string): Promise<{ data: IDataObject[]; pagination: { total: number } }> {
	const response = await fetch(`${server.baseUrl}/api/v1${path}`, { headers: { Authorization: `Bearer ${apiKey}` } });
	return (await response.json()) as { data: IDataObject[]; pagination: { total: number } };
}

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	apiKey = (await server.createKey('acme', ['read:users', 'read:courses', 'read:enrollments'], 'pickers')).key;
}, 120_000);

afterAll(async () => {
	await server?.stop();
});

describe('users', () => {
	it('scrolls through every user once, page by page, with the token n8n hands back', async () => {
		const { pagination } = await api('/users?per_page=1');
		const seen: string[] = [];
		let token: string | undefined;
		let calls = 0;
		do {
			const page = await runListSearch(new LmsUsers(), 'searchUsers', options({ paginationToken: token }));
			seen.push(...page.results.map((result) => String(result.value)));
			token = page.paginationToken as string | undefined;
			calls++;
		} while (token);
		expect(pagination.total).toBeGreaterThan(LIST_SEARCH_PAGE_SIZE);
		expect(calls).toBe(Math.ceil(pagination.total / LIST_SEARCH_PAGE_SIZE));
		expect(seen).toHaveLength(pagination.total);
		expect(new Set(seen).size).toBe(pagination.total);
	});

	it('finds a user by the start of a name word or of the email, shown as "name (email)"', async () => {
		const user = (await api('/users?role=student&per_page=1')).data[0] as { id: string; name: string; email: string };
		const lastWord = user.name.split(' ').pop()!;
		const byName = await runListSearch(new LmsUsers(), 'searchUsers', options({ filter: lastWord.slice(0, 3).toLowerCase() }));
		expect(byName.results).toContainEqual({ name: `${user.name} (${user.email})`, value: user.id });
		for (const result of byName.results) expect(String(result.name).toLowerCase()).toMatch(new RegExp(`(^|[ (])${lastWord.slice(0, 3).toLowerCase()}`));

		const byEmail = await runListSearch(new LmsUsers(), 'searchUsers', options({ filter: user.email.toUpperCase() }));
		expect(byEmail.results).toEqual([{ name: `${user.name} (${user.email})`, value: user.id }]);
		expect(byEmail.paginationToken).toBeUndefined();
	});

	it('the student picker lists students only', async () => {
		const page = await runListSearch(new LmsEnrollments(), 'searchStudents', options());
		const students = await api(`/users?role=student&per_page=${LIST_SEARCH_PAGE_SIZE}`);
		expect(page.results.map((result) => result.value)).toEqual(students.data.map((user) => user.id));
	});

	it('a search nobody matches is an empty list without a next page', async () => {
		const page = await runListSearch(new LmsUsers(), 'searchUsers', options({ filter: 'zzqxnobody' }));
		expect(page).toEqual({ results: [], paginationToken: undefined });
	});
});

describe('courses', () => {
	it('searches published courses by a word of the title', async () => {
		const courses = (await api('/courses?per_page=100')).data as Array<{ id: string; title: string }>;
		const course = courses[courses.length - 1];
		const word = course.title.split(' ')[1] ?? course.title;
		const page = await runListSearch(new LmsCourses(), 'searchCourses', options({ filter: word.slice(0, 4) }));
		expect(page.results).toContainEqual({ name: course.title, value: course.id });
		const expected = (await api(`/courses?search=${encodeURIComponent(word.slice(0, 4))}&per_page=100`)).data.map((c) => c.id);
		expect(page.results.map((result) => result.value)).toEqual(expected);
	});
});

describe('enrollments and certificates', () => {
	it('list their IDs page by page (no names to search)', async () => {
		const first = await runListSearch(new LmsEnrollments(), 'searchEnrollments', options());
		const second = await runListSearch(new LmsEnrollments(), 'searchEnrollments', options({ paginationToken: String(first.paginationToken) }));
		const expected = await api(`/enrollments?per_page=${LIST_SEARCH_PAGE_SIZE}&page=2`);
		expect(first.paginationToken).toBe('2');
		expect(second.results.map((result) => result.value)).toEqual(expected.data.map((e) => e.id));
		for (const result of second.results) expect(String(result.value)).toMatch(new RegExp(LMS_RECORD_KINDS.enrollment.pattern));

		const certificates = await runListSearch(new LmsCertificates(), 'searchCertificates', options());
		expect(certificates.results.length).toBeGreaterThan(0);
		for (const result of certificates.results) expect(String(result.value)).toMatch(new RegExp(LMS_RECORD_KINDS.certificate.pattern));
	});
});
