import { SCOPES } from '../../server/src/api-keys/model';
import { createKey } from '../../server/src/api-keys/lifecycle';
import { Certificate, Course, Enrollment, Event, Organization, User } from '../../server/src/db';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';

/**
 * A small, fully known world for the API tests: two enterprise organizations (so every
 * endpoint can be probed across the boundary), one business organization, users of every
 * role, published and draft courses, enrollments in every status, certificates, and keys
 * with each scope.
 */

export const NO_LIMIT = { RATE_LIMIT_PER_MINUTE: '1000000' };

const at = (n: number) => new Date(Date.UTC(2024, 0, 1, 0, 0, n));

export interface World {
	acme: Organization;
	globex: Organization;
	initech: Organization;
	users: Record<'superAdmin' | 'admin' | 'instructor' | 'alice' | 'bob' | 'carol' | 'dave' | 'erin' | 'twinA' | 'twinB', User>;
	courses: Record<'intro' | 'advanced' | 'safety' | 'draft', Course>;
	enrollments: Enrollment[];
	certificates: Certificate[];
	globexRecords: { student: User; course: Course; draft: Course; enrollment: Enrollment; certificate: Certificate };
	/** Secrets by purpose. */
	keys: {
		all: string;
		readUsers: string;
		readCourses: string;
		readEnrollments: string;
		writeEnrollments: string;
		globex: string;
		initech: string;
	};
}

async function key(organizationId: string, scopes: string[]): Promise<string> {
	const { secret } = await createKey({ organizationId, label: `test ${scopes.join(' ')}`, scopes, actor: { kind: 'cli' } });
	return secret;
}

export async function buildWorld(): Promise<World> {
	const acme = await Organization.create({ name: 'Acme', slug: 'acme', plan: 'enterprise' });
	const globex = await Organization.create({ name: 'Globex', slug: 'globex', plan: 'enterprise' });
	const initech = await Organization.create({ name: 'Initech', slug: 'initech', plan: 'enterprise' });

	const user = (n: number, name: string, role: User['role'], organizationId = acme.id) =>
		User.create({ organizationId, name, email: `${name.toLowerCase()}@${organizationId === acme.id ? 'acme' : 'other'}.example`, role, passwordHash: null, createdAt: at(n) });
	const users = {
		superAdmin: await user(1, 'Sam', 'super_admin'),
		admin: await user(2, 'Ada', 'admin'),
		instructor: await user(3, 'Ian', 'instructor'),
		alice: await user(4, 'Alice', 'student'),
		bob: await user(5, 'Bob', 'student'),
		carol: await user(6, 'Carol', 'student'),
		dave: await user(7, 'Dave', 'student'),
		erin: await user(8, 'Erin', 'student'),
		// Same created_at: the id decides their order.
		twinA: await user(9, 'TwinA', 'student'),
		twinB: await user(9, 'TwinB', 'student'),
	};

	const course = (n: number, title: string, status: Course['status'], organizationId = acme.id) =>
		Course.create({ organizationId, title, description: `${title} description`, status, publishedAt: status === 'published' ? at(n) : null, createdAt: at(n) });
	const courses = {
		intro: await course(10, 'Intro', 'published'),
		advanced: await course(11, 'Advanced', 'published'),
		safety: await course(12, 'Safety', 'published'),
		draft: await course(13, 'Draft', 'draft'),
	};

	const enroll = (n: number, student: User, c: Course, status: Enrollment['status']) =>
		Enrollment.create({
			organizationId: student.organizationId,
			studentId: student.id,
			courseId: c.id,
			status,
			progressPercent: status === 'completed' ? 100 : 40,
			enrolledAt: at(n),
			completedAt: status === 'completed' ? at(n + 100) : null,
			createdAt: at(n),
		});
	const enrollments = [
		await enroll(20, users.alice, courses.intro, 'completed'),
		await enroll(21, users.alice, courses.advanced, 'active'),
		await enroll(22, users.bob, courses.intro, 'withdrawn'),
		await enroll(23, users.carol, courses.intro, 'expired'),
		await enroll(24, users.carol, courses.safety, 'completed'),
	];
	const certify = (n: number, e: Enrollment, expires: Date | null) =>
		Certificate.create({ organizationId: e.organizationId, studentId: e.studentId, courseId: e.courseId, enrollmentId: e.id, issuedAt: at(n), expiresAt: expires, createdAt: at(n) });
	const certificates = [await certify(30, enrollments[0], null), await certify(31, enrollments[4], at(9_999_999))];

	const gStudent = await user(40, 'Gina', 'student', globex.id);
	const gCourse = await course(41, 'Globex course', 'published', globex.id);
	const gDraft = await course(42, 'Globex draft', 'draft', globex.id);
	const gEnrollment = await enroll(43, gStudent, gCourse, 'completed');
	const gCertificate = await certify(44, gEnrollment, null);
	await user(50, 'Ivan', 'student', initech.id);

	const keys = {
		all: await key(acme.id, [...SCOPES]),
		readUsers: await key(acme.id, ['read:users']),
		readCourses: await key(acme.id, ['read:courses']),
		readEnrollments: await key(acme.id, ['read:enrollments']),
		writeEnrollments: await key(acme.id, ['write:enrollments']),
		globex: await key(globex.id, [...SCOPES]),
		initech: await key(initech.id, [...SCOPES]),
	};
	// Keys are only issued on Enterprise; a downgrade afterwards is how a business org holds one.
	await initech.update({ plan: 'business' });

	return {
		acme,
		globex,
		initech,
		users,
		courses,
		enrollments,
		certificates,
		globexRecords: { student: gStudent, course: gCourse, draft: gDraft, enrollment: gEnrollment, certificate: gCertificate },
		keys,
	};
}

export interface Reply {
	status: number;
	headers: Headers;
	text: string;
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	body: any;
}

export interface CallOptions {
	key?: string;
	method?: string;
	headers?: Record<string, string>;
	/** An object is sent as JSON; a string is sent as it is. */
	body?: unknown;
}

export async function call(server: Pick<TestServer, 'baseUrl'>, path: string, options: CallOptions = {}): Promise<Reply> {
	const headers: Record<string, string> = { ...options.headers };
	if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
	let body: string | undefined;
	if (options.body !== undefined) {
		body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
		if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
	}
	const res = await fetch(server.baseUrl + path, { method: options.method ?? 'GET', headers, body });
	const text = await res.text();
	let parsed: unknown;
	try {
		parsed = text ? JSON.parse(text) : undefined;
	} catch {
		parsed = undefined;
	}
	return { status: res.status, headers: res.headers, text, body: parsed };
}

/** A problem+json response with this status and code, carrying the request id. */
export function expectProblem(reply: Reply, status: number, code: string): void {
	expect({ status: reply.status, code: reply.body?.code }).toEqual({ status, code });
	expect(reply.headers.get('content-type')).toBe('application/problem+json');
	expect(reply.body).toMatchObject({ status, code, type: expect.stringContaining(code), title: expect.any(String), detail: expect.any(String) });
	expect(reply.body.request_id).toBe(reply.headers.get('x-request-id'));
	expect(reply.text).not.toMatch(/\bat .+\.(ts|js):\d+|SELECT |INSERT |lms_[0-9A-Za-z]{38}/);
}

export async function startApiServer(env: Record<string, string> = NO_LIMIT): Promise<{ server: TestServer; world: World }> {
	const server = await startTestServer({ seed: false, env });
	const world = await buildWorld();
	return { server, world };
}

/**
 * Waits until the feed serves every event the organization has stored. On PostgreSQL an event
 * is served once no older transaction of this database is still running, so right after a
 * write it may lag for a moment; SQLite never lags.
 */
export async function feedCaughtUp(server: Pick<TestServer, 'baseUrl'>, key: string, organizationId: string, timeout = 10_000): Promise<void> {
	const served = async () => {
		let count = 0;
		for (let after = ''; ; ) {
			const page = await call(server, `/api/v1/events?limit=100${after ? `&after=${after}` : ''}`, { key });
			count += page.body.data.length;
			if (!page.body.has_more) return count;
			after = page.body.data[page.body.data.length - 1].id;
		}
	};
	await waitUntil(async () => (await served()) >= (await Event.count({ where: { organizationId } })), { timeout, interval: 50, what: 'the feed serving every stored event' });
}

let studentSerial = 0;
/** Students of Acme made for one test (`<prefix> <n>`, `<prefix><n>@acme.example`), so tests never meet each other's records. */
export async function newStudents(world: World, prefix: string, count: number): Promise<User[]> {
	const made: User[] = [];
	for (let i = 0; i < count; i++) {
		studentSerial += 1;
		const n = studentSerial;
		made.push(await User.create({ organizationId: world.acme.id, name: `${prefix} ${n}`, email: `${prefix.toLowerCase()}${n}@acme.example`, role: 'student', passwordHash: null }));
	}
	return made;
}
