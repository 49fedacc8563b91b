import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

import { certificateSchema } from '../../server/src/certificates/schema';
import { courseSchema } from '../../server/src/courses/schema';
import { enrollmentSchema } from '../../server/src/enrollments/schema';
import { eventListSchema, eventSchema, feedHeadSchema } from '../../server/src/events/schema';
import { Group, GroupMembership } from '../../server/src/openapi/schemas';
import { userSchema } from '../../server/src/users/schema';
import type { TestServer } from '../helpers/server';
import { call, feedCaughtUp, startApiServer, type World } from './api-fixtures';

/**
 * Issue 41: each main resource's response schema sits next to its serializer, and the OpenAPI
 * document is built from them. Here every serializer's real output, as the running server answers
 * it (lists, one record, `expand=`, events of each kind), validates against the schema beside it,
 * with no extra property and none missing: a field added to a serializer and not to its schema
 * (or the other way round) fails here, naming the resource.
 */

let server: TestServer;
let world: World;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// The event's `object` names the other resources by reference, as in the document.
ajv.addSchema({
	$id: 'lms.json',
	components: { schemas: { User: userSchema, Course: courseSchema, Enrollment: enrollmentSchema, Certificate: certificateSchema, Event: eventSchema, EventList: eventListSchema, FeedHead: feedHeadSchema, Group, GroupMembership } },
});
const schemaOf = (name: string) => ajv.getSchema(`lms.json#/components/schemas/${name}`)!;

beforeAll(async () => {
	({ server, world } = await startApiServer());
});
afterAll(() => server.stop());

function expectValid(name: string, values: unknown[]): void {
	expect(values.length).toBeGreaterThan(0);
	const validate = schemaOf(name);
	for (const value of values) {
		const problems = validate(value) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.message}`);
		expect({ name, value, problems }).toEqual({ name, value, problems: [] });
	}
}

const get = async (path: string) => {
	const reply = await call(server, path, { key: world.keys.all });
	expect(reply.status).toBe(200);
	return reply.body;
};

test.each([
	['User', '/api/v1/users?per_page=100', (id: string) => `/api/v1/users/${id}`],
	['Course', '/api/v1/courses?per_page=100', (id: string) => `/api/v1/courses/${id}`],
	['Enrollment', '/api/v1/enrollments?per_page=100&expand=student,course', (id: string) => `/api/v1/enrollments/${id}`],
	['Certificate', '/api/v1/certificates?per_page=100&expand=student,course', (id: string) => `/api/v1/certificates/${id}`],
])('%s: every item of the list and one record as the server serializes them', async (name, list, one) => {
	const { data } = (await get(list)) as { data: Array<{ id: string }> };
	expectValid(name, data);
	expectValid(name, [await get(one(data[0].id))]);
});

test('Event: the feed, its head and one event, with a user.updated carrying previous_attributes', async () => {
	// Real changes through the API: their events carry the serializers' own output.
	expect((await call(server, `/api/v1/users/${world.users.alice.id}`, { method: 'PATCH', key: world.keys.all, body: { name: 'Alicia' } })).status).toBe(200);
	expect((await call(server, '/api/v1/enrollments', { method: 'POST', key: world.keys.all, body: { student_id: world.users.dave.id, course_id: world.courses.safety.id } })).status).toBe(201);
	await feedCaughtUp(server, world.keys.all, world.acme.id);
	const page = (await get('/api/v1/events?limit=100')) as { data: Array<{ id: string; type: string }> };
	expectValid('EventList', [page]);
	const created = page.data.filter((e) => e.type === 'enrollment.created');
	expectValid('Event', created);
	expectValid('Event', page.data.filter((e) => e.type === 'user.updated'));
	expectValid('Event', [await get(`/api/v1/events/${created[0].id}`)]);
	expectValid('FeedHead', [await get('/api/v1/events/head')]);
});
