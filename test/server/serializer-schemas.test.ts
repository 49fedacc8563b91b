import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

import { createKey, revokeKey, rotateKey } from '../../server/src/api-keys/lifecycle';
import { ApiKey } from '../../server/src/db';
import { keyJson } from '../../server/src/api-keys/present';
import { cliKeySchema } from '../../server/src/api-keys/schema';
import { openApiDocument } from '../../server/src/openapi/document';
import { componentSchemas } from '../../server/src/openapi/components';
import { waitUntil } from '../helpers/wait';
import { webhookSuite } from '../helpers/webhook-suite';
import { call, feedCaughtUp, type CallOptions } from './api-fixtures';

/**
 * Issue 41: every answer's schema sits next to the serializer that makes it, and the OpenAPI
 * document is built from them (openapi/components.ts). Here each serializer's real output, as the
 * running server answers it after real operations (lists, one record, `expand=`, writes and their
 * replays, events of each kind, webhook deliveries to a real receiver, problems of every
 * extension), validates against the schema beside it, with no extra property and none missing.
 * A field added to a serializer and not to its schema fails here, naming the schema; a field
 * only the schema has fails too: required ones at once, optional ones (expand=, expires_at, a
 * problem's extensions…) because every property a schema declares must show up at least once.
 * And every schema the document has is checked (the last test).
 */

const suite = webhookSuite({ WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_POLL_MS: '100' }, { receiver: 'suite' });
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// Schemas name each other by reference, as in the document; `CliKey` is not the API's (the CLI's --json).
const schemas: Record<string, { properties?: Record<string, unknown> }> = { ...componentSchemas, CliKey: cliKeySchema };
ajv.addSchema({ $id: 'lms.json', components: { schemas } });
const schemaOf = (name: string) => ajv.getSchema(`lms.json#/components/schemas/${name}`)!;

/** Per schema, the top-level properties real output carried. */
const seen = new Map<string, Set<string>>();

function expectValid(name: string, values: unknown[]): void {
	expect(values.length).toBeGreaterThan(0);
	const validate = schemaOf(name);
	for (const value of values) {
		const problems = validate(value) ? [] : validate.errors!.map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
		expect({ name, value, problems }).toEqual({ name, value, problems: [] });
		const keys = seen.get(name) ?? new Set<string>();
		for (const key of Object.keys(value as object)) keys.add(key);
		seen.set(name, keys);
	}
}

const key = () => suite.world.keys.all;

/** A call that must answer `status`; its body. */
async function expectStatus(status: number, path: string, options: CallOptions = {}) {
	const reply = await call(suite.server, path, { key: key(), ...options });
	expect({ path, status: reply.status, body: reply.body }).toEqual({ path, status, body: reply.body });
	return reply.body;
}
const get = (path: string, apiKey = key()) => expectStatus(200, path, { key: apiKey });
const post = (status: number, path: string, body: unknown, headers: Record<string, string> = {}) => expectStatus(status, path, { method: 'POST', body, headers });

test.each([
	['User', '/api/v1/users?per_page=100', (id: string) => `/api/v1/users/${id}`],
	['Course', '/api/v1/courses?per_page=100', (id: string) => `/api/v1/courses/${id}`],
	['Enrollment', '/api/v1/enrollments?per_page=100&expand=student,course', (id: string) => `/api/v1/enrollments/${id}`],
	['Certificate', '/api/v1/certificates?per_page=100&expand=student,course', (id: string) => `/api/v1/certificates/${id}`],
])('%s: the list, every item of it and one record as the server serializes them', async (name, list, one) => {
	const page = (await get(list)) as { data: Array<{ id: string }> };
	expectValid(`${name}List`, [page]);
	expectValid('Pagination', [(page as unknown as { pagination: unknown }).pagination]);
	expectValid(name, page.data);
	expectValid(name, [await get(one(page.data[0].id))]);
});

test('Event: the feed, its head and one event, with a user.updated carrying previous_attributes', async () => {
	const { world } = suite;
	// Real changes through the API: their events carry the serializers' own output.
	await expectStatus(200, `/api/v1/users/${world.users.alice.id}`, { method: 'PATCH', body: { name: 'Alicia' } });
	await post(201, '/api/v1/enrollments', { student_id: world.users.dave.id, course_id: world.courses.safety.id });
	await feedCaughtUp(suite.server, key(), world.acme.id);
	const page = (await get('/api/v1/events?limit=100')) as { data: Array<{ id: string; type: string }> };
	expectValid('EventList', [page]);
	const created = page.data.filter((e) => e.type === 'enrollment.created');
	expectValid('Event', created);
	expectValid('Event', page.data.filter((e) => e.type === 'user.updated'));
	expectValid('Event', [await get(`/api/v1/events/${created[0].id}`)]);
	expectValid('FeedHead', [await get('/api/v1/events/head')]);
});

describe('groups, members and assignments', () => {
	let groupId: string;

	test('Group: created, edited, listed, read, and as its events carry it', async () => {
		const { world } = suite;
		const made = (await post(201, '/api/v1/groups', { name: 'Schemas', description: 'Checked', external_id: 'SCHEMA-1' })) as { id: string };
		groupId = made.id;
		expectValid('Group', [made, await get(`/api/v1/groups/${groupId}`)]);
		expectValid('Group', [await expectStatus(200, `/api/v1/groups/${groupId}`, { method: 'PATCH', body: { description: null } })]);
		await post(201, '/api/v1/groups', { name: 'Schemas, bare' });
		const page = (await get('/api/v1/groups?per_page=100')) as { data: unknown[] };
		expectValid('GroupList', [page]);
		expectValid('Group', page.data);
		await feedCaughtUp(suite.server, key(), world.acme.id);
		const events = (await get('/api/v1/events?type=group.created,group.updated&limit=100')) as { data: Array<{ data: { object: unknown } }> };
		expectValid('Event', events.data);
		expectValid('Group', events.data.map((e) => e.data.object));
	});

	test('MembersAdded, MembersRemoved, GroupMembership (the member events) and the members list', async () => {
		const { world } = suite;
		const ids = [world.users.bob.id, world.users.carol.id];
		expectValid('MembersAdded', [await post(200, `/api/v1/groups/${groupId}/members`, { user_ids: [...ids, world.users.erin.id] })]);
		expectValid('MembersAdded', [await post(200, `/api/v1/groups/${groupId}/members`, { user_ids: ids })]);
		expectValid('MembersRemoved', [await post(200, `/api/v1/groups/${groupId}/members/remove`, { user_ids: [world.users.erin.id, world.users.dave.id] })]);
		const members = (await get(`/api/v1/groups/${groupId}/members`)) as { data: unknown[] };
		expectValid('UserList', [members]);
		expectValid('User', members.data);
		await feedCaughtUp(suite.server, key(), world.acme.id);
		const events = (await get('/api/v1/events?type=group.member_added,group.member_removed&limit=100')) as { data: Array<{ data: { object: unknown } }> };
		expectValid('Event', events.data);
		expectValid('GroupMembership', events.data.map((e) => e.data.object));
	});

	test('Assignment: created (applying), applied, listed and read', async () => {
		const { world } = suite;
		const made = (await post(201, '/api/v1/assignments', { group_id: groupId, course_id: world.courses.advanced.id, due_in_days: 30, on_removal: 'withdraw' })) as { id: string };
		expectValid('Assignment', [made]);
		const applied = await waitUntil(async () => {
			const one = (await get(`/api/v1/assignments/${made.id}`)) as { applied_at: string | null };
			return one.applied_at !== null && one;
		}, { what: 'the assignment applied' });
		expectValid('Assignment', [applied, await post(201, '/api/v1/assignments', { group_id: groupId, course_id: world.courses.intro.id })]);
		const page = (await get('/api/v1/assignments?per_page=100')) as { data: unknown[] };
		expectValid('AssignmentList', [page]);
		expectValid('Assignment', page.data);
	});

	test('CourseCompletion: the report, of the organization and of a group', async () => {
		for (const path of ['/api/v1/reports/course_completion', `/api/v1/reports/course_completion?group_id=${groupId}`]) {
			const report = (await get(path)) as { data: unknown[] };
			expectValid('CourseCompletionReport', [report]);
			expectValid('CourseCompletion', report.data);
		}
	});
});

describe('API keys', () => {
	test('ApiKey (GET /api/v1/key): a plain key, a key with an expiry date and a rotated key in its grace time', async () => {
		const { world } = suite;
		const expiring = await createKey({ organizationId: world.acme.id, label: 'Expiring', scopes: ['read:users'], expires: 30, actor: { kind: 'cli' } });
		const graced = await createKey({ organizationId: world.acme.id, label: 'Graced', scopes: ['read:courses'], actor: { kind: 'cli' } });
		await rotateKey({ keyId: graced.apiKey.id, expireOldAfter: 24, actor: { kind: 'cli' } });
		const answers = [await get('/api/v1/key'), await get('/api/v1/key', expiring.secret), await get('/api/v1/key', graced.secret)];
		expectValid('ApiKey', answers);
		expect(answers.map((a) => [a.expires_at !== undefined, a.grace_until !== null])).toEqual([
			[false, false],
			[true, false],
			[false, true],
		]);
	});

	test('CliKey (keyJson, `keys … --json`): created with its secret, expiring, rotated in grace, revoked', async () => {
		const { world } = suite;
		const actor = { kind: 'cli' as const };
		const created = await createKey({ organizationId: world.acme.id, label: 'CLI', scopes: ['read:users', 'write:users'], expires: 10, actor });
		const rotated = await rotateKey({ keyId: created.apiKey.id, expireOldAfter: 2, actor });
		const revoked = await revokeKey({ keyId: rotated.apiKey.id, actor });
		const old = await ApiKey.findByPk(created.apiKey.id);
		expectValid('CliKey', [keyJson(created.apiKey, created.secret), keyJson(rotated.apiKey, rotated.secret), keyJson(old!), keyJson(revoked)]);
		expectValid('CliKey', (await ApiKey.findAll({ where: { organizationId: world.acme.id } })).map((k) => keyJson(k)));
	});
});

describe('webhook endpoints, deliveries, attempts and receipts', () => {
	let endpointId: string;

	test('NewWebhookEndpoint (and its replay, without the secret), WebhookEndpoint edited, listed, read', async () => {
		const body = { url: suite.receiver.url, events: ['user.created'], description: 'Schemas' };
		const made = (await post(201, '/api/v1/webhook_endpoints', body, { 'idempotency-key': 'schemas-endpoint' })) as { id: string; secret?: string };
		const replay = (await post(201, '/api/v1/webhook_endpoints', body, { 'idempotency-key': 'schemas-endpoint' })) as { id: string; secret?: string };
		expect([made.secret, replay.secret, replay.id]).toEqual([expect.any(String), undefined, made.id]);
		expectValid('NewWebhookEndpoint', [made, replay]);
		endpointId = made.id;
		expectValid('WebhookEndpoint', [await get(`/api/v1/webhook_endpoints/${endpointId}`)]);
		expectValid('WebhookEndpoint', [await expectStatus(200, `/api/v1/webhook_endpoints/${endpointId}`, { method: 'PATCH', body: { description: 'Schemas, edited' } })]);
		const page = (await get('/api/v1/webhook_endpoints')) as { data: unknown[] };
		expectValid('WebhookEndpointList', [page]);
		expectValid('WebhookEndpoint', page.data);
	});

	test('RotatedWebhookEndpoint (and its replay, without the secret)', async () => {
		const path = `/api/v1/webhook_endpoints/${endpointId}/rotate_secret`;
		const rotated = (await post(200, path, {}, { 'idempotency-key': 'schemas-rotate' })) as { secret?: string };
		const replay = (await post(200, path, {}, { 'idempotency-key': 'schemas-rotate' })) as { secret?: string };
		expect([rotated.secret, replay.secret]).toEqual([expect.any(String), undefined]);
		expectValid('RotatedWebhookEndpoint', [rotated, replay]);
	});

	test('WebhookDelivery (failing, received, retried, a test event), WebhookReceipt and WebhookDeliveryAttempt', async () => {
		const deliveries = `/api/v1/webhook_endpoints/${endpointId}/deliveries`;
		suite.receiver.answer((_r, res) => res.writeHead(500).end('down'));
		await post(201, '/api/v1/users', { name: 'Hooked', email: 'hooked@acme.example' });
		const failing = await waitUntil(async () => {
			const page = (await get(deliveries)) as { data: Array<{ id: string; status: string; event_id: string; last_status_code: number | null }> };
			return page.data.length === 1 && page.data[0].last_status_code === 500 && page.data[0];
		}, { what: 'the user.created delivery failing once' });
		expectValid('WebhookDelivery', [failing]);
		// The receiver has it after all: the first receipt is first, the next one is not.
		const receipts = `/api/v1/webhook_endpoints/${endpointId}/receipts`;
		const first = (await post(201, receipts, { event_id: failing.event_id })) as { first: boolean };
		const again = (await post(200, receipts, { event_id: failing.event_id })) as { first: boolean };
		expect([first.first, again.first]).toEqual([true, false]);
		expectValid('WebhookReceipt', [first, again]);
		suite.receiver.answer((_r, res) => res.writeHead(200).end('ok'));
		expectValid('WebhookDelivery', [await post(200, `${deliveries}/${failing.id}/retry`, {})]);
		expectValid('WebhookDelivery', [await post(201, `/api/v1/webhook_endpoints/${endpointId}/test`, {})]);
		// The retry and the test event are sent: their attempts and answers are on the list.
		const page = await waitUntil(async () => {
			const all = (await get(deliveries)) as { data: Array<{ status: string; last_status_code: number | null }> };
			return all.data.length === 2 && all.data.every((d) => d.status === 'delivered' && d.last_status_code === 200) && all;
		}, { what: 'the retry and the test event delivered' });
		expectValid('WebhookDeliveryList', [page]);
		expectValid('WebhookDelivery', page.data);
		const attempts = (await get(`${deliveries}/${failing.id}/attempts`)) as { data: Array<{ status_code: number | null }> };
		expect(attempts.data.map((a) => a.status_code)).toEqual(expect.arrayContaining([500, 200]));
		expectValid('WebhookDeliveryAttemptList', [attempts]);
		expectValid('WebhookDeliveryAttempt', attempts.data);
	});
});

test('Problem and FieldError: problems of every extension member, and of the web layer', async () => {
	const { world } = suite;
	const group = (await post(201, '/api/v1/groups', { name: 'Problems' })) as { id: string };
	await post(201, '/api/v1/assignments', { group_id: group.id, course_id: world.courses.safety.id });
	const problems = [
		// errors
		await expectStatus(400, '/api/v1/users?bogus=1'),
		// enrollment_id
		await post(409, '/api/v1/enrollments', { student_id: world.users.alice.id, course_id: world.courses.intro.id }),
		// user_id
		await post(409, '/api/v1/users', { name: 'Twin', email: 'bob@acme.example' }),
		// required_scope
		await expectStatus(403, '/api/v1/courses', { key: world.keys.readUsers }),
		// from, to
		await expectStatus(409, `/api/v1/enrollments/${world.enrollments[0].id}`, { method: 'PATCH', body: { status: 'withdrawn' } }),
		// group_id
		await post(409, '/api/v1/groups', { name: 'PROBLEMS' }),
		// assignment_id
		await post(409, '/api/v1/assignments', { group_id: group.id, course_id: world.courses.safety.id }),
		// user_ids
		await post(422, `/api/v1/groups/${group.id}/members`, { user_ids: ['usr_nobody1', world.users.bob.id] }),
		// The web layer's own: no key, no such record, a method the path lacks, bad JSON, another media type.
		await expectStatus(401, '/api/v1/users', { key: undefined }),
		await expectStatus(404, '/api/v1/users/usr_nobody1'),
		await expectStatus(405, '/api/v1/courses', { method: 'POST', body: {} }),
		await post(400, '/api/v1/groups', '{"name":'),
		await expectStatus(415, '/api/v1/groups', { method: 'POST', body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
	];
	expectValid('Problem', problems);
	expectValid('FieldError', problems.flatMap((p) => (p as { errors?: unknown[] }).errors ?? []));
});

test('every schema of the document was checked, and every property it declares was seen in real output', () => {
	expect(Object.keys(openApiDocument().components.schemas).sort()).toEqual(Object.keys(componentSchemas).sort());
	const unseen = Object.entries(schemas).map(([name, schema]) => {
		const keys = seen.get(name);
		return { name, checked: keys !== undefined, missing: Object.keys(schema.properties ?? {}).filter((p) => !keys?.has(p)) };
	});
	expect(unseen.filter((u) => !u.checked || u.missing.length > 0)).toEqual([]);
});
