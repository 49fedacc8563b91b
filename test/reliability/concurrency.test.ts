/**
 * 100 identical POST /api/v1/enrollments at once, several times over: exactly one creates the
 * enrollment, the other 99 are told it exists (409 with its id), none fails, and the database
 * holds one row. Runs on whichever database the suite runs on (SQLite by default, PostgreSQL
 * under TEST_DATABASE=postgres).
 */
import { Agent } from 'node:http';

import { Enrollment, User } from '../../server/src/db';
import { startTestServer, type TestServer } from '../helpers/server';
import { parseJson, recordsOf, send, type OrgRecords } from './support';

const CONCURRENT = 100;
const ROUNDS = 3;

let server: TestServer;
let acme: OrgRecords;
// One socket per request, so the 100 really are in flight together.
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENT });

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });
	acme = await recordsOf(server, 'acme');
}, 120_000);

afterAll(async () => {
	agent.destroy();
	await server?.stop();
});

test.each(Array.from({ length: ROUNDS }, (_, i) => i + 1))(
	`round %i: ${CONCURRENT} concurrent identical enrollments → one 201, ${CONCURRENT - 1} × 409, one row`,
	async (round) => {
		const student = await User.create({
			organizationId: acme.organization.id,
			name: `Racer ${round}`,
			email: `racer-${round}@acme.example`,
			role: 'student',
			passwordHash: null,
		});
		const course = acme.publishedCourses[round % acme.publishedCourses.length];
		const body = JSON.stringify({ student_id: student.id, course_id: course.id });

		const replies = await Promise.all(
			Array.from({ length: CONCURRENT }, () =>
				send(
					server.baseUrl,
					{
						method: 'POST',
						path: '/api/v1/enrollments',
						headers: { authorization: `Bearer ${acme.key}`, 'content-type': 'application/json' },
						body,
					},
					agent,
				),
			),
		);

		const count = (status: number) => replies.filter((r) => r.status === status).length;
		expect({ created: count(201), conflicts: count(409), other: replies.filter((r) => r.status !== 201 && r.status !== 409).map((r) => r.status) }).toEqual({
			created: 1,
			conflicts: CONCURRENT - 1,
			other: [],
		});
		const created = parseJson(replies.find((r) => r.status === 201)!.text) as { id: string };
		const pointedAt = new Set(replies.filter((r) => r.status === 409).map((r) => (parseJson(r.text) as { enrollment_id: string }).enrollment_id));
		expect(pointedAt).toEqual(new Set([created.id]));
		expect(await Enrollment.count({ where: { studentId: student.id, courseId: course.id } })).toBe(1);
	},
	60_000,
);
