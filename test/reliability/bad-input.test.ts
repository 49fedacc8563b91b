/**
 * Thousands of generated requests, most of them nonsense: random methods, paths, query strings,
 * headers and bodies, with and without a valid key. Whatever arrives, the server answers with a
 * client error or a success, never a 5xx; every error under /api/ is a complete problem
 * document; nothing internal leaks; and the server is still healthy afterwards.
 *
 * The runs are reproducible: the seed is fixed (override with FC_SEED=n) and printed on failure.
 */
import fc from 'fast-check';

import { User } from '../../server/src/db';
import { startTestServer, type TestServer } from '../helpers/server';
import { LEAK, parseJson, problemDefect, recordsOf, send, type OrgRecords, type RawReply, type RawRequest } from './support';

const SEED = Number(process.env.FC_SEED ?? 20_240_611);
const RUNS = { anything: 4000, enrollmentBodies: 1000, listQueries: 1000 };

let server: TestServer;
let acme: OrgRecords;
let globex: OrgRecords;
let gen: ReturnType<typeof arbitraries>;

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });
	acme = await recordsOf(server, 'acme');
	globex = await recordsOf(server, 'globex');
	const revoked = await server.createKey('acme', ['read:users'], 'to be revoked');
	await server.revokeKey(revoked.id);
	gen = arbitraries(acme, globex, revoked.key);
}, 120_000);

afterAll(() => server?.stop());

// ---------------------------------------------------------------------------------------------
// The ingredients of bad requests

const NASTY_STRINGS = [
	"' OR '1'='1",
	"'; DROP TABLE users; --",
	'" OR ""="',
	'1; SELECT pg_sleep(5)',
	"usr_x' UNION SELECT key_hash FROM api_keys --",
	'<script>alert("lms-xss")</script>',
	'"><img src=x onerror=alert(1)>',
	'{{7*7}}',
	'${7*7}',
	'../../../../etc/passwd',
	'..\\..\\windows\\win.ini',
	'\u0000',
	'%00',
	'\uFEFF',
	'\uD83D\uDE00 émoji',
	'\u202Eevil',
	'null',
	'undefined',
	'__proto__',
	'constructor',
	'',
	' ',
	'a'.repeat(5000),
];

const KNOWN_PATHS = [
	'/api/v1/users',
	'/api/v1/courses',
	'/api/v1/enrollments',
	'/api/v1/certificates',
	'/api/v1/openapi.json',
	'/api/v1',
	'/api/v2/users',
	'/api',
	'/API/V1/USERS',
	'/api/v1/users/',
	'/api/v1//users',
	'//api/v1/users',
	'/settings',
	'/settings/api-keys',
	'/settings/api-keys/new',
	'/settings/assets/settings.css',
	'/settings/assets/../../../package.json',
	'/login',
	'/logout',
	'/healthz',
	'/readyz',
	'/',
	'/favicon.ico',
];

const QUERY_KEYS = ['page', 'per_page', 'email', 'role', 'student_id', 'course_id', 'status', 'sort', 'page[]', 'per_page[gt]', '__proto__', 'constructor'];

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'PURGE', 'SEARCH'];

/** Built once the data exists: the generators mix real ids (ours and another organization's) in. */
function arbitraries(acme: OrgRecords, globex: OrgRecords, revokedKey: string) {
	const ids = [
		acme.students[0].id,
		acme.staff[0].id,
		acme.publishedCourses[0].id,
		acme.draftCourses[0].id,
		acme.enrollments[0].id,
		acme.certificates[0].id,
		globex.students[0].id,
		globex.publishedCourses[0].id,
		globex.enrollments[0].id,
		globex.certificates[0].id,
		'usr_',
		'usr_' + 'A'.repeat(40),
		'crs_00000000000000000000',
		'enr_-_-',
		'cert_ ',
	];
	// Real pairs, so that some generated enrollments succeed (201) or collide (409).
	const students = acme.students.slice(0, 20).map((u) => u.id);
	const courses = [...acme.publishedCourses, ...acme.draftCourses].map((c) => c.id);

	const nasty = fc.oneof(
		fc.constantFrom(...NASTY_STRINGS),
		fc.string(),
		fc.string({ unit: 'grapheme' }),
		fc.string({ unit: 'binary' }),
	);

	/** A value as it could appear in a URL: properly encoded, or raw and broken. */
	const urlPiece = fc.oneof(
		{ weight: 4, arbitrary: nasty.map(encodeURIComponent) },
		{ weight: 2, arbitrary: fc.constantFrom('..', '.', '%2e%2e', '..%2f..%2f..%2fetc%2fpasswd', '%2e%2e%5c', '%', '%zz', '%ff%fe', '%C0%AF', '%00', '%0d%0aX-Injected:%201', ';', '::', '~', '*', '$', '@', '!') },
		{ weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9_.~-]{0,60}$/) },
	);

	const path = fc
		.tuple(
			fc.constantFrom(...KNOWN_PATHS),
			fc.oneof(
				fc.constant([]),
				fc.array(fc.oneof(urlPiece, fc.constantFrom(...ids).map(encodeURIComponent)), { minLength: 1, maxLength: 3 }),
			),
		)
		.map(([base, segments]) => (base === '/' ? `/${segments.join('/')}` : [base, ...segments].join('/')));

	const queryValue = fc.oneof(
		fc.constantFrom('1', '0', '-1', '2', '100', '101', '1.5', '1e3', '0x10', '2147483647', '2147483648', '99999999999999999999999', 'NaN', 'Infinity', ' 1', '1 ', '+1', '01', '').map(encodeURIComponent),
		fc.constantFrom('student', 'instructor', 'admin', 'super_admin', 'active', 'completed', 'withdrawn', 'expired', 'STUDENT', 'bob@acme.example'),
		fc.constantFrom(...ids).map(encodeURIComponent),
		urlPiece,
	);
	const queryString = fc.oneof(
		fc.constant(''),
		fc
			.array(fc.tuple(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_KEYS) }, { weight: 1, arbitrary: urlPiece }), queryValue), { maxLength: 6 })
			.map((pairs) => '?' + pairs.map(([k, v]) => `${k}=${v}`).join('&')),
		fc.constantFrom('?', '?&&', '?=', '?page', '?page==1', '?page=1&page=2', '?%zz=1', '?a=%'),
	);

	const key = acme.key;
	const authorization = fc.oneof(
		{ weight: 3, arbitrary: fc.constant(undefined) },
		{ weight: 6, arbitrary: fc.constant(`Bearer ${key}`) },
		{
			weight: 4,
			arbitrary: fc.constantFrom(
				`bearer ${key}`,
				`Bearer    ${key}   `,
				`Bearer\t${key}`,
				`Bearer ${key} extra`,
				`Bearer ${key.slice(0, -1)}x`,
				`Bearer ${key.toUpperCase()}`,
				`Bearer ${revokedKey}`,
				`Bearer ${globex.key}`,
				'Bearer lms_00000000000000000000000000000000000000',
				'Bearer',
				'Bearer ',
				'Basic dXNlcjpwYXNz',
				'Token abc',
				'Bearer ' + 'A'.repeat(6000),
				'',
				key,
			),
		},
		// Anything a header may carry, including bytes above 0x7f.
		{ weight: 2, arbitrary: fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c === 0x7f ? 0x20 : c)), maxLength: 300 }).map((s) => 'Bearer ' + s) },
	);

	const contentType = fc.oneof(
		{ weight: 3, arbitrary: fc.constant('application/json') },
		{
			weight: 2,
			arbitrary: fc.constantFrom(
				undefined,
				'application/json; charset=utf-8',
				'application/json; charset=latin1',
				'application/json; charset=utf-16',
				'APPLICATION/JSON',
				'application/problem+json',
				'application/json-patch+json',
				'text/plain',
				'text/html',
				'application/x-www-form-urlencoded',
				'multipart/form-data; boundary=xyz',
				'application/xml',
				'*/*',
				';;;',
				'application/json; boundary',
			),
		},
	);

	/** Bodies: valid, wrongly typed, malformed, deeply nested, huge, unicode, injections. */
	const body = fc.oneof(
		{ weight: 2, arbitrary: fc.constant(undefined) },
		{
			weight: 3,
			arbitrary: fc
				.record(
					{
						student_id: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...students) }, fc.constantFrom(...ids), nasty, fc.jsonValue()),
						course_id: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...courses) }, fc.constantFrom(...ids), nasty, fc.jsonValue()),
						extra: fc.jsonValue(),
					},
					{ requiredKeys: ['student_id', 'course_id'] },
				)
				.map((o) => JSON.stringify(o)),
		},
		{ weight: 2, arbitrary: fc.json() },
		{ weight: 2, arbitrary: fc.oneof(fc.string(), fc.string({ unit: 'binary' })) },
		{
			weight: 2,
			arbitrary: fc.constantFrom(
				'{',
				'{"student_id":}',
				"{'student_id':'x'}",
				'{"student_id":"a",}',
				'NaN',
				'\uFEFF{"student_id":"a","course_id":"b"}',
				'{"student_id":"a","student_id":"b","course_id":"c"}',
				'{"__proto__":{"role":"super_admin"},"student_id":"a","course_id":"b"}',
				'{"constructor":{"prototype":{"polluted":true}}}',
				'{"student_id":"\\ud800","course_id":"\\u0000"}',
				'[]',
				'null',
				'"string"',
				'12',
				'true',
				'\u0000\u0001\u0002',
			),
		},
		{
			weight: 1,
			arbitrary: fc.integer({ min: 100, max: 8000 }).chain((depth) =>
				fc.constantFrom(
					'['.repeat(depth) + ']'.repeat(depth),
					'{"student_id":'.repeat(depth) + '1' + '}'.repeat(depth),
					'['.repeat(depth),
				),
			),
		},
		{
			weight: 1,
			arbitrary: fc.constantFrom(16 * 1024 - 40, 16 * 1024 + 1, 100_000, 1_000_000).map(
				(size) => `{"student_id":"${'x'.repeat(size)}","course_id":"y"}`,
			),
		},
	);

	const extraHeaders = fc.record(
		{
			accept: fc.constantFrom('*/*', 'text/html', 'application/xml', 'application/json;q=0', 'image/png'),
			'x-request-id': fc.oneof(fc.stringMatching(/^[A-Za-z0-9_.:-]{1,200}$/), fc.constantFrom('', ' ', '<script>', 'a'.repeat(2000), 'ünïcødé')),
			'x-forwarded-for': fc.constantFrom('1.2.3.4', '::1', 'garbage', '1.2.3.4, 5.6.7.8', ''),
			cookie: fc.constantFrom('lms.sid=s%3Agarbage.sig', 'connect.sid=x', '=;=;', 'a=' + 'b'.repeat(3000)),
			'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown'),
			origin: fc.constantFrom('https://evil.example', 'null'),
		},
		{ requiredKeys: [] },
	);

	const anyRequest: fc.Arbitrary<RawRequest> = fc
		.record({
			method: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('GET', 'POST') }, { weight: 2, arbitrary: fc.constantFrom(...METHODS) }),
			path,
			query: queryString,
			authorization,
			contentType,
			body,
			chunked: fc.boolean(),
			extra: extraHeaders,
		})
		.map(({ method, path, query, authorization, contentType, body, chunked, extra }) => {
			const headers: Record<string, string> = { ...extra };
			if (authorization !== undefined) headers.authorization = authorization;
			if (contentType !== undefined) headers['content-type'] = contentType;
			return { method, path: path + query, headers, body, chunked: body !== undefined && chunked };
		});
	return { anyRequest, body, contentType, queryString, urlPiece, ids };
}

// ---------------------------------------------------------------------------------------------
// What every answer must satisfy

function latin1(value: string): string {
	return Buffer.from(value, 'utf8').toString('latin1');
}

/** Node's client refuses header bytes it cannot send; send UTF-8 as raw bytes, like curl. */
function sendable(req: RawRequest): RawRequest {
	const headers = Object.fromEntries(Object.entries(req.headers ?? {}).map(([k, v]) => [k, latin1(v)]));
	return { ...req, headers };
}

function defectOf(req: RawRequest, reply: RawReply): string | undefined {
	if (reply.status >= 500) return `answered ${reply.status}: ${reply.text.slice(0, 300)}`;
	if (!reply.headers['x-request-id']) return 'no X-Request-Id';
	const pathname = req.path.split('?')[0];
	if (reply.status >= 400 && /^\/api(\/|$)/i.test(pathname)) {
		const defect = problemDefect(reply, req.method);
		if (defect) return `a ${reply.status} under /api/ is not a problem document: ${defect}`;
	}
	if (LEAK.test(reply.text)) return `the body leaks internals: ${reply.text.slice(0, 300)}`;
	if (reply.text.includes(acme.key) || reply.text.includes(globex.key)) return 'the body echoes an API key';
	if (String(reply.headers['content-type']).startsWith('text/html') && /<script>alert|onerror=alert/.test(reply.text)) {
		return 'an HTML page echoes markup unescaped';
	}
	return undefined;
}

/** Status → count for the current property, printed so a run shows what it exercised. */
let statuses = new Map<number, number>();

async function expectWellHandled(req: RawRequest): Promise<void> {
	const reply = await send(server.baseUrl, sendable(req));
	statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
	const defect = defectOf(req, reply);
	if (defect) throw new Error(`${req.method} ${req.path.slice(0, 200)}: ${defect}`);
}

async function check(name: string, arbitrary: fc.Arbitrary<RawRequest>, numRuns: number): Promise<void> {
	const started = Date.now();
	statuses = new Map();
	try {
		await fc.assert(fc.asyncProperty(arbitrary, expectWellHandled), { seed: SEED, numRuns, includeErrorInReport: true });
	} catch (err) {
		throw new Error(`${name} failed; reproduce with FC_SEED=${SEED} npx jest test/reliability/bad-input\n${(err as Error).message}`);
	}
	const seen = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`).join(' ');
	console.log(`${name}: ${numRuns} requests in ${Date.now() - started} ms (seed ${SEED}): ${seen}`);
}

// ---------------------------------------------------------------------------------------------

describe(`bad input (fast-check seed ${SEED})`, () => {
	test(`${RUNS.anything} requests of any shape: no 5xx, problem+json under /api/, no leaks`, async () => {
		await check('anything', gen.anyRequest, RUNS.anything);
	}, 240_000);

	test(`${RUNS.enrollmentBodies} POST /api/v1/enrollments bodies with a valid key`, async () => {
		const post = fc.record({ body: gen.body, contentType: gen.contentType, chunked: fc.boolean() }).map(({ body, contentType, chunked }) => ({
			method: 'POST',
			path: '/api/v1/enrollments',
			headers: { authorization: `Bearer ${acme.key}`, ...(contentType ? { 'content-type': contentType } : {}) },
			body,
			chunked: body !== undefined && chunked,
		}));
		await check('enrollment bodies', post, RUNS.enrollmentBodies);
	}, 240_000);

	test(`${RUNS.listQueries} list query strings with a valid key`, async () => {
		const list = fc
			.record({
				resource: fc.constantFrom('users', 'courses', 'enrollments', 'certificates'),
				query: gen.queryString,
				id: fc.oneof(
					{ weight: 3, arbitrary: fc.constant(undefined) },
					{ weight: 1, arbitrary: fc.oneof(gen.urlPiece, fc.constantFrom(...gen.ids).map(encodeURIComponent)) },
				),
			})
			.map(({ resource, query, id }) => ({
				method: 'GET',
				path: `/api/v1/${resource}${id !== undefined ? `/${id}` : ''}${query}`,
				headers: { authorization: `Bearer ${acme.key}` },
			}));
		await check('list queries', list, RUNS.listQueries);
	}, 240_000);

	test('afterwards the server is healthy and a valid request still works', async () => {
		expect((await send(server.baseUrl, { method: 'GET', path: '/healthz' })).status).toBe(200);
		expect((await send(server.baseUrl, { method: 'GET', path: '/readyz' })).status).toBe(200);

		const list = await send(server.baseUrl, { method: 'GET', path: '/api/v1/users?per_page=5', headers: { authorization: `Bearer ${acme.key}` } });
		expect(list.status).toBe(200);
		expect((parseJson(list.text) as { data: unknown[] }).data).toHaveLength(5);

		const student = await User.create({ organizationId: acme.organization.id, name: 'After Fuzz', email: 'after-fuzz@acme.example', role: 'student', passwordHash: null });
		const created = await send(server.baseUrl, {
			method: 'POST',
			path: '/api/v1/enrollments',
			headers: { authorization: `Bearer ${acme.key}`, 'content-type': 'application/json' },
			body: JSON.stringify({ student_id: student.id, course_id: acme.publishedCourses[0].id }),
		});
		expect(created.status).toBe(201);
	});
});
