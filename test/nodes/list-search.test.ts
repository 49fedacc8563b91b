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
	type Named = { id: string; status: string; expires_at?: string | null; student: { name: string; email: string }; course: { title: string } };
	const statusWords: Record<string, string> = { active: 'in progress', completed: 'completed', withdrawn: 'withdrawn', expired: 'expired' };

	it('list enrollments newest first as "student — course (status)", page by page', async () => {
		const first = await runListSearch(new LmsEnrollments(), 'searchEnrollments', options());
		const second = await runListSearch(new LmsEnrollments(), 'searchEnrollments', options({ paginationToken: String(first.paginationToken) }));
		const newest = (await api(`/enrollments?sort=-created_at&expand=student,course&per_page=${LIST_SEARCH_PAGE_SIZE}`)).data as unknown as Named[];
		const expected = await api(`/enrollments?sort=-created_at&per_page=${LIST_SEARCH_PAGE_SIZE}&page=2`);
		expect(first.paginationToken).toBe('2');
		expect(first.results).toEqual(
			newest.map((e) => ({ name: `${e.student.name} — ${e.course.title} (${statusWords[e.status]})`, value: e.id })),
		);
		expect(second.results.map((result) => result.value)).toEqual(expected.data.map((e) => e.id));
		for (const result of second.results) expect(String(result.value)).toMatch(new RegExp(LMS_RECORD_KINDS.enrollment.pattern));
	});

	it("search enrollments by the student's name or e-mail or the course's title", async () => {
		const newest = (await api('/enrollments?sort=-created_at&expand=student,course&per_page=1')).data[0] as unknown as Named;
		const lastWord = newest.student.name.split(' ').pop()!;
		const byStudent = await runListSearch(new LmsEnrollments(), 'searchEnrollments', options({ filter: lastWord.toUpperCase() }));
		expect(byStudent.results[0]).toEqual({ name: `${newest.student.name} — ${newest.course.title} (${statusWords[newest.status]})`, value: newest.id });
		for (const result of byStudent.results) expect(String(result.name).toLowerCase()).toContain(lastWord.toLowerCase());

		const byEmail = await runListSearch(new LmsEnrollments(), 'searchEnrollments', options({ filter: newest.student.email }));
		expect(byEmail.results.map((r) => r.value)).toContain(newest.id);
		for (const result of byEmail.results) expect(String(result.name)).toMatch(new RegExp(`^${newest.student.name} — `));

		const titleWord = newest.course.title.split(' ')[0];
		const byCourse = await runListSearch(new LmsEnrollments(), 'searchEnrollments', options({ filter: titleWord }));
		const expected = await api(`/enrollments?search=${encodeURIComponent(titleWord)}&sort=-created_at&per_page=${LIST_SEARCH_PAGE_SIZE}`);
		expect(byCourse.results.map((r) => r.value)).toEqual(expected.data.map((e) => e.id));
		expect(byCourse.results[0].value).toBe(newest.id);

		expect(await runListSearch(new LmsEnrollments(), 'searchEnrollments', options({ filter: 'zzqxnobody' }))).toEqual({ results: [], paginationToken: undefined });
	});

	it('list and search certificates newest first as "student — course (validity)"', async () => {
		const newest = (await api('/certificates?sort=-created_at&expand=student,course&per_page=100')).data as unknown as Named[];
		expect(newest.length).toBeGreaterThan(0);
		const validity = (c: Named) =>
			!c.expires_at ? 'valid, no expiry' : Date.parse(c.expires_at) > Date.now() ? `valid until ${c.expires_at.slice(0, 10)}` : `expired ${c.expires_at.slice(0, 10)}`;
		const all = await runListSearch(new LmsCertificates(), 'searchCertificates', options());
		expect(all.results.slice(0, newest.length)).toEqual(
			newest.slice(0, LIST_SEARCH_PAGE_SIZE).map((c) => ({ name: `${c.student.name} — ${c.course.title} (${validity(c)})`, value: c.id })),
		);
		const one = newest[newest.length - 1];
		const search = await runListSearch(new LmsCertificates(), 'searchCertificates', options({ filter: one.student.email }));
		expect(search.results).toContainEqual({ name: `${one.student.name} — ${one.course.title} (${validity(one)})`, value: one.id });
		for (const result of search.results) expect(String(result.value)).toMatch(new RegExp(LMS_RECORD_KINDS.certificate.pattern));
	});

	it('a key without read:users still lists them, the student by id (names and e-mails need read:users)', async () => {
		const noUsers = (await server.createKey('acme', ['read:courses', 'read:enrollments'], 'pickers without users')).key;
		const newest = (await api(`/enrollments?sort=-created_at&expand=student,course&per_page=${LIST_SEARCH_PAGE_SIZE}`)).data as unknown as Array<Named & { student_id: string }>;
		const page = await runListSearch(new LmsEnrollments(), 'searchEnrollments', { credentials: { baseUrl: server.baseUrl, apiKey: noUsers } });
		expect(page.results).toEqual(newest.map((e) => ({ name: `${e.student_id} — ${e.course.title} (${statusWords[e.status]})`, value: e.id })));
		expect(JSON.stringify(page.results)).not.toContain(newest[0].student.email);
		const certificates = await runListSearch(new LmsCertificates(), 'searchCertificates', { credentials: { baseUrl: server.baseUrl, apiKey: noUsers } });
		expect(certificates.results.length).toBeGreaterThan(0);
		// A search for a student's name finds nothing for such a key; a course title still does.
		expect((await runListSearch(new LmsEnrollments(), 'searchEnrollments', { credentials: { baseUrl: server.baseUrl, apiKey: noUsers }, filter: newest[0].student.email })).results).toEqual([]);
		const titleWord = newest[0].course.title.split(' ')[0];
		expect((await runListSearch(new LmsEnrollments(), 'searchEnrollments', { credentials: { baseUrl: server.baseUrl, apiKey: noUsers }, filter: titleWord })).results.length).toBeGreaterThan(0);
	});
});
