/**
 * The action nodes and the credential against the real reference server (demo data, SPEC §8),
 * run by n8n-core's WorkflowExecute exactly as a workflow would run them.
 */
import { LmsCertificates } from '../../nodes/LmsCertificates/LmsCertificates.node';
import { LmsCourses } from '../../nodes/LmsCourses/LmsCourses.node';
import { LmsEnrollments } from '../../nodes/LmsEnrollments/LmsEnrollments.node';
import { LmsUsers } from '../../nodes/LmsUsers/LmsUsers.node';
import { changePlan } from '../../server/src/organizations/service';
import { pinTypeVersion, runNode, testCredential } from '../helpers/n8n';
import { startTestServer, type TestServer } from '../helpers/server';

// Version 1's parameters: these tests go on proving that workflows saved with version 1 run unchanged.
pinTypeVersion(1);

const ALL_SCOPES = ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments'];

let server: TestServer;
let apiKey: string;

const as = (key: string) => ({ credentials: { baseUrl: server.baseUrl, apiKey: key } });

/** The API's own count, to compare the nodes' output with. */
async function totalOf(path: string): Promise<number> {
	const response = await fetch(`${server.baseUrl}/api/v1${path}?per_page=1`, {
		headers: { Authorization: `Bearer ${apiKey}` },
	});
	const body = (await response.json()) as { pagination: { total: number } };
	return body.pagination.total;
}

beforeAll(async () => {
	// The limit is raised here only so this file's many calls do not queue behind each other;
	// e2e-rate-limit.test.ts checks the nodes under a tight limit.
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	apiKey = (await server.createKey('acme', ALL_SCOPES, 'n8n e2e')).key;
}, 120_000);

afterAll(async () => {
	await server?.stop();
});

describe('LMS Users', () => {
	it('Get Many with Return All returns exactly `total` users, each once', async () => {
		const total = await totalOf('/users');

		const { items, error } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: true }, as(apiKey));

		expect(error).toBeUndefined();
		expect(total).toBeGreaterThan(150); // 150 students plus staff: more than one page of 100
		expect(items).toHaveLength(total);
		expect(new Set(items.map((item) => item.json.id)).size).toBe(total);
		expect(items.every((item) => item.pairedItem && (item.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	it('Get Many with Limit 7 returns 7', async () => {
		const { items } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: false, limit: 7 }, as(apiKey));
		expect(items).toHaveLength(7);
	});

	it('filters by role and by email, and Get returns the same user', async () => {
		const { items: admins } = await runNode(
			new LmsUsers(),
			{ operation: 'getAll', returnAll: true, filters: { role: 'super_admin' } },
			as(apiKey),
		);
		expect(admins).toHaveLength(1);
		const admin = admins[0].json as { id: string; email: string };

		const { items: byEmail } = await runNode(
			new LmsUsers(),
			{ operation: 'getAll', returnAll: false, limit: 50, filters: { email: admin.email.toUpperCase() } },
			as(apiKey),
		);
		expect(byEmail.map((item) => item.json.id)).toEqual([admin.id]);

		const { items: got } = await runNode(new LmsUsers(), { operation: 'get', userId: admin.id }, as(apiKey));
		expect(got[0].json).toEqual(admins[0].json);
	});
});

describe('LMS Courses', () => {
	it('lists the published courses only; a draft answers not found with the ID named', async () => {
		const { items } = await runNode(new LmsCourses(), { operation: 'getAll', returnAll: true }, as(apiKey));
		expect(items).toHaveLength(9);
		expect(items.every((item) => item.json.status === 'published')).toBe(true);

		const draft = server.demo!.draft_courses.find((course) => course.organization === 'acme')!;
		const { error } = await runNode(new LmsCourses(), { operation: 'get', courseId: draft.id }, as(apiKey));
		expect(error?.message).toBe(
			`Course ${draft.id} was not found: check the Course ID (it must exist and be published in the key's organization)`,
		);
	});
});

describe('LMS Enrollments', () => {
	/** A student and a published course that are not enrolled together yet. */
	async function freshPair(): Promise<{ studentId: string; courseId: string }> {
		const { items: courses } = await runNode(new LmsCourses(), { operation: 'getAll', returnAll: true }, as(apiKey));
		const { items: students } = await runNode(
			new LmsUsers(),
			{ operation: 'getAll', returnAll: true, filters: { role: 'student' } },
			as(apiKey),
		);
		for (const student of students.reverse()) {
			const { items: enrolled } = await runNode(
				new LmsEnrollments(),
				{ operation: 'getAll', returnAll: true, filters: { studentId: (student.json.id as string) } },
				as(apiKey),
			);
			const taken = new Set(enrolled.map((item) => item.json.course_id));
			const course = courses.find((candidate) => !taken.has(candidate.json.id));
			if (course) return { studentId: (student.json.id as string), courseId: (course.json.id as string) };
		}
		throw new Error('every demo student is enrolled in every course');
	}

	it('an enrollment created through the node is found by Get, and "return existing" returns it again', async () => {
		const pair = await freshPair();

		const created = await runNode(
			new LmsEnrollments(),
			{ operation: 'create', ...pair, ifAlreadyEnrolled: 'fail' },
			as(apiKey),
		);
		expect(created.error).toBeUndefined();
		const enrollment = created.items[0].json;
		expect(enrollment).toMatchObject({
			student_id: pair.studentId,
			course_id: pair.courseId,
			status: 'active',
			progress_percent: 0,
		});

		const fetched = await runNode(
			new LmsEnrollments(),
			{ operation: 'get', enrollmentId: (enrollment.id as string) },
			as(apiKey),
		);
		expect(fetched.items[0].json).toEqual(enrollment);

		const again = await runNode(
			new LmsEnrollments(),
			{ operation: 'create', ...pair, ifAlreadyEnrolled: 'returnExisting' },
			as(apiKey),
		);
		expect(again.error).toBeUndefined();
		expect(again.items[0].json.id).toBe(enrollment.id);

		const refused = await runNode(
			new LmsEnrollments(),
			{ operation: 'create', ...pair, ifAlreadyEnrolled: 'fail' },
			as(apiKey),
		);
		expect(refused.error?.message).toBe(
			`Student ${pair.studentId} is already enrolled in course ${pair.courseId} (enrollment ${enrollment.id as string}): set "If Already Enrolled" to "Return Existing Enrollment" to carry on instead of failing`,
		);

		const listed = await runNode(
			new LmsEnrollments(),
			{ operation: 'getAll', returnAll: true, filters: { studentId: pair.studentId, courseId: pair.courseId } },
			as(apiKey),
		);
		expect(listed.items.map((item) => item.json.id)).toEqual([enrollment.id]);
	});

	it('names the wrong ID when the student does not exist', async () => {
		const { items: courses } = await runNode(new LmsCourses(), { operation: 'getAll', returnAll: false, limit: 1 }, as(apiKey));
		const { error } = await runNode(
			new LmsEnrollments(),
			{ operation: 'create', studentId: 'usr_doesnotexist', courseId: (courses[0].json.id as string), ifAlreadyEnrolled: 'fail' },
			as(apiKey),
		);
		expect(error?.message).toBe(
			"Student usr_doesnotexist was not found in the key's organization: check the Student ID",
		);
	});

	it('Get Many filtered by status returns only that status, all of them', async () => {
		const { items } = await runNode(
			new LmsEnrollments(),
			{ operation: 'getAll', returnAll: true, filters: { status: 'completed' } },
			as(apiKey),
		);
		expect(items.length).toBeGreaterThan(0);
		expect(items.every((item) => item.json.status === 'completed')).toBe(true);
	});
});

describe('LMS Certificates', () => {
	it('Get Many returns every certificate, and the course filter narrows it', async () => {
		const total = await totalOf('/certificates');
		const { items } = await runNode(new LmsCertificates(), { operation: 'getAll', returnAll: true }, as(apiKey));
		expect(total).toBeGreaterThanOrEqual(40);
		expect(items).toHaveLength(total);

		const courseId = (items[0].json.course_id as string);
		const { items: forCourse } = await runNode(
			new LmsCertificates(),
			{ operation: 'getAll', returnAll: true, filters: { courseId } },
			as(apiKey),
		);
		expect(forCourse.length).toBeGreaterThan(0);
		expect(forCourse.every((item) => item.json.course_id === courseId)).toBe(true);

		const { items: one } = await runNode(
			new LmsCertificates(),
			{ operation: 'get', certificateId: (items[0].json.id as string) },
			as(apiKey),
		);
		expect(one[0].json).toEqual(items[0].json);
	});
});

describe('keys', () => {
	it('a rotated key fails with the actionable message; the new key works', async () => {
		const original = await server.createKey('acme', ['read:users'], 'to rotate');
		const rotated = await server.rotateKey(original.id);

		const { error } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: false, limit: 1 }, as(original.key));
		expect(error?.message).toBe('The key was rotated: paste the new key into the credential');
		expect(error?.description).toContain('rotated');

		const { items } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: false, limit: 1 }, as(rotated.key));
		expect(items).toHaveLength(1);
	});

	it('a revoked key fails with the actionable message', async () => {
		const key = await server.createKey('acme', ['read:users'], 'to revoke');
		await server.revokeKey(key.id);

		const { error } = await runNode(new LmsUsers(), { operation: 'get', userId: 'usr_x' }, as(key.key));
		expect(error?.message).toBe(
			'The key was revoked: create a new key in Settings → API Keys and paste it into the credential',
		);
	});

	it('a key without the scope is told which scope it lacks', async () => {
		const key = await server.createKey('acme', ['read:courses'], 'courses only');

		const { error } = await runNode(new LmsUsers(), { operation: 'getAll', returnAll: true }, as(key.key));
		expect(error?.message).toBe(
			'The key lacks read:users: create a key with read:users in Settings → API Keys and paste it into the credential',
		);
	});

	it("an organization downgraded from Enterprise gets the plan message", async () => {
		const key = await server.createKey('globex', ['read:users'], 'before downgrade');
		await changePlan('globex', 'business');
		try {
			const { error } = await runNode(new LmsUsers(), { operation: 'get', userId: 'usr_x' }, as(key.key));
			expect(error?.message).toBe(
				"The LMS API needs the Enterprise plan: the key's organization is not on it, so ask your LMS administrator to upgrade",
			);
			await expect(testCredential({ baseUrl: server.baseUrl, apiKey: key.key })).resolves.toMatchObject({
				status: 'Error',
				message: expect.stringContaining('Enterprise plan'),
			});
		} finally {
			await changePlan('globex', 'enterprise');
		}
	});

	it('the credential test passes for any working key whatever its scopes', async () => {
		for (const scopes of [['read:users'], ['write:enrollments'], ['read:courses', 'read:enrollments'], ['manage:webhooks']]) {
			const key = await server.createKey('acme', scopes, `test ${scopes.join(' ')}`);
			await expect(testCredential({ baseUrl: `${server.baseUrl}/api/v1/`, apiKey: key.key })).resolves.toEqual({
				status: 'OK',
				message: 'Connection successful!',
			});
		}
	});

	it("the credential test fails for an invalid, a rotated and a revoked key, in the server's own words", async () => {
		const credentials = (key: string) => ({ baseUrl: server.baseUrl, apiKey: key });
		// What the server itself says to a request with this key.
		const serverDetail = async (key: string) => {
			const res = await fetch(`${server.baseUrl}/api/v1/users`, { headers: { Authorization: `Bearer ${key}` } });
			return ((await res.json()) as { detail: string }).detail;
		};

		const invalidKey = 'lms_notarealkeynotarealkeynotareal000000';
		const invalid = await testCredential(credentials(invalidKey));
		expect(invalid).toEqual({ status: 'Error', message: await serverDetail(invalidKey) });

		const toRotate = await server.createKey('acme', ['read:users'], 'cred rotate');
		await server.rotateKey(toRotate.id);
		const rotated = await testCredential(credentials(toRotate.key));
		expect(rotated).toEqual({ status: 'Error', message: await serverDetail(toRotate.key) });

		const toRevoke = await server.createKey('acme', ['read:users'], 'cred revoke');
		await server.revokeKey(toRevoke.id);
		const revoked = await testCredential(credentials(toRevoke.key));
		expect(revoked).toEqual({ status: 'Error', message: await serverDetail(toRevoke.key) });
	});

});
