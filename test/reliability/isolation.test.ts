/**
 * Organizations are sealed from each other. Every endpoint is probed with every kind of
 * foreign id (another organization's users, courses, enrollments, certificates) in every place
 * an id can go (path, filter, POST body), in both directions between two Enterprise
 * organizations and towards a Business one: the answer is 404, 422, 400 for an id of the wrong
 * kind, or an empty list, and never carries anything of the other organization.
 */
import { Enrollment } from '../../server/src/db';
import { startTestServer, type TestServer } from '../helpers/server';
import { parseJson, recordsOf, send, type OrgRecords, type RawReply } from './support';

let server: TestServer;
const orgs: Record<string, OrgRecords> = {};

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });
	for (const slug of ['acme', 'globex', 'initech']) orgs[slug] = await recordsOf(server, slug);
}, 120_000);

afterAll(() => server?.stop());

type Kind = 'user' | 'course' | 'enrollment' | 'certificate';

/** Every foreign id worth trying, by kind: a student and a staff member, a published and a draft course… */
function foreignIds(org: OrgRecords): Array<{ kind: Kind; label: string; id: string }> {
	const candidates: Array<[Kind, string, { id: string } | undefined]> = [
		['user', 'student', org.students[0]],
		['user', 'staff member', org.staff[0]],
		['course', 'published course', org.publishedCourses[0]],
		['course', 'draft course', org.draftCourses[0]],
		['enrollment', 'enrollment', org.enrollments[0]],
		['certificate', 'certificate', org.certificates[0]],
	];
	return candidates.flatMap(([kind, label, row]) => (row ? [{ kind, label, id: row.id }] : []));
}

/** Everything that identifies the other organization's records: ids, emails, names, titles. */
function fingerprints(org: OrgRecords): string[] {
	return [
		org.organization.id,
		...org.students.flatMap((u) => [u.id, u.email]),
		...org.staff.flatMap((u) => [u.id, u.email]),
		...org.publishedCourses.flatMap((c) => [c.id, c.title]),
		...org.draftCourses.flatMap((c) => [c.id, c.title]),
		...org.enrollments.map((e) => e.id),
		...org.certificates.flatMap((c) => [c.id, c.verificationCode]),
	];
}

/** Fails if the reply shows any of `marks`, except the one id the request itself carried. */
function expectNothingOf(reply: RawReply, marks: string[], sent?: string): void {
	const leaked = marks.filter((mark) => mark !== sent && reply.text.includes(mark));
	expect(leaked).toEqual([]);
}

const get = (key: string, path: string) => send(server.baseUrl, { method: 'GET', path, headers: { authorization: `Bearer ${key}` } });

const PAIRS: Array<[string, string]> = [
	['acme', 'globex'],
	['globex', 'acme'],
	['acme', 'initech'],
];

describe.each(PAIRS)('%s’s key against %s’s records', (callerSlug, ownerSlug) => {
	let caller: OrgRecords;
	let owner: OrgRecords;
	let marks: string[];
	beforeAll(() => {
		caller = orgs[callerSlug];
		owner = orgs[ownerSlug];
		marks = fingerprints(owner);
	});

	test('GET /{resource}/{id} with any foreign id → 404', async () => {
		for (const resource of ['users', 'courses', 'enrollments', 'certificates']) {
			for (const foreign of foreignIds(owner)) {
				const reply = await get(caller.key, `/api/v1/${resource}/${foreign.id}`);
				expect({ resource, foreign: foreign.label, status: reply.status, code: (parseJson(reply.text) as { code?: string }).code }).toEqual({
					resource,
					foreign: foreign.label,
					status: 404,
					code: 'not_found',
				});
				expectNothingOf(reply, marks, foreign.id);
			}
		}
	});

	test('list filters naming a foreign record → an empty list (or 400 for an id of the wrong kind)', async () => {
		const filters: Array<[string, string, Kind]> = [
			['enrollments', 'student_id', 'user'],
			['enrollments', 'course_id', 'course'],
			['certificates', 'student_id', 'user'],
			['certificates', 'course_id', 'course'],
		];
		for (const [resource, param, accepts] of filters) {
			for (const foreign of foreignIds(owner)) {
				const reply = await get(caller.key, `/api/v1/${resource}?${param}=${foreign.id}`);
				const where = `${resource}?${param}=<${foreign.label}>`;
				if (foreign.kind === accepts) {
					expect({ where, status: reply.status, body: parseJson(reply.text) }).toEqual({
						where,
						status: 200,
						body: { data: [], pagination: { page: 1, per_page: 50, total: 0 } },
					});
				} else {
					expect({ where, status: reply.status }).toEqual({ where, status: 400 });
				}
				expectNothingOf(reply, marks, foreign.id);
			}
		}
		// Mixed with a filter of our own, too.
		const ownStudent = caller.enrollments[0]?.studentId ?? caller.students[0].id;
		for (const course of [...owner.publishedCourses, ...owner.draftCourses].slice(0, 2)) {
			const reply = await get(caller.key, `/api/v1/enrollments?student_id=${ownStudent}&course_id=${course.id}`);
			expect(parseJson(reply.text)).toMatchObject({ data: [], pagination: { total: 0 } });
		}
		for (const user of [...owner.students.slice(0, 3), ...owner.staff.slice(0, 2)]) {
			const reply = await get(caller.key, `/api/v1/users?email=${encodeURIComponent(user.email)}`);
			expect({ email: user.email, status: reply.status, body: parseJson(reply.text) }).toEqual({
				email: user.email,
				status: 200,
				body: { data: [], pagination: { page: 1, per_page: 50, total: 0 } },
			});
			expectNothingOf(reply, marks);
		}
	});

	test('POST /enrollments with a foreign id as student or course → 422, nothing created', async () => {
		const before = await Enrollment.count();
		const ownStudent = caller.students[caller.students.length - 1].id;
		const ownCourse = caller.publishedCourses[0].id;
		const post = (body: object) =>
			send(server.baseUrl, {
				method: 'POST',
				path: '/api/v1/enrollments',
				headers: { authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' },
				body: JSON.stringify(body),
			});
		for (const foreign of foreignIds(owner)) {
			const asStudent = await post({ student_id: foreign.id, course_id: ownCourse });
			expect({ as: `student_id=<${foreign.label}>`, status: asStudent.status, code: (parseJson(asStudent.text) as { code?: string }).code }).toEqual({
				as: `student_id=<${foreign.label}>`,
				status: 422,
				code: 'student_not_found',
			});
			expectNothingOf(asStudent, marks, foreign.id);

			const asCourse = await post({ student_id: ownStudent, course_id: foreign.id });
			expect({ as: `course_id=<${foreign.label}>`, status: asCourse.status, code: (parseJson(asCourse.text) as { code?: string }).code }).toEqual({
				as: `course_id=<${foreign.label}>`,
				status: 422,
				code: 'course_not_found',
			});
			expectNothingOf(asCourse, marks, foreign.id);
		}
		// Both foreign, the owner's own real pair: still nothing.
		const theirs = owner.enrollments[0];
		if (theirs) {
			const reply = await post({ student_id: theirs.studentId, course_id: theirs.courseId });
			expect(reply.status).toBe(422);
			expectNothingOf(reply, marks, theirs.studentId);
		}
		expect(await Enrollment.count()).toBe(before);
	});

	test('unfiltered lists, every page, show none of the other organization’s records', async () => {
		for (const resource of ['users', 'courses', 'enrollments', 'certificates']) {
			for (let page = 1; ; page++) {
				const reply = await get(caller.key, `/api/v1/${resource}?per_page=100&page=${page}`);
				expect(reply.status).toBe(200);
				expectNothingOf(reply, marks);
				const body = parseJson(reply.text) as { pagination: { total: number } };
				if (page * 100 >= body.pagination.total) break;
			}
		}
	});
});
