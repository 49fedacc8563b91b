import { ApiKey } from '../../server/src/api-keys/model';
import { createKey } from '../../server/src/api-keys/lifecycle';
import { WebhookDelivery, WebhookEndpoint } from '../../server/src/db';
import { createUser } from '../../server/src/users/service';
import { waitUntil } from '../helpers/wait';
import { webhookSuite } from '../helpers/webhook-suite';
import { call, expectProblem } from './api-fixtures';

/**
 * Issue 27, finding 1: an endpoint receives only what its creating key's scopes can read
 * through the feed (SPEC §19). Before the fix a `manage:webhooks` key alone subscribed to `*`
 * and received every user's name and e-mail, while the feed answered the same key 403.
 */
const suite = webhookSuite({ WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '1000' });

async function keyWith(scopes: string[]): Promise<{ id: string; secret: string }> {
	const { apiKey, secret } = await createKey({ organizationId: suite.world.acme.id, label: `hooks ${scopes.join(' ')}`, scopes, actor: { kind: 'cli' } });
	return { id: apiKey.id, secret };
}

const subscribe = (key: string, events: string[], url = suite.receiver.url) =>
	call(suite.server, '/api/v1/webhook_endpoints', { method: 'POST', key, body: { url, events } });

let made = 0;
const newUser = () =>
	createUser({ organization: suite.world.acme, email: `scoped${++made}@acme.example`, name: `Scoped ${made}`, role: 'student' });

async function enroll(): Promise<void> {
	const student = await newUser();
	const reply = await call(suite.server, '/api/v1/enrollments', {
		method: 'POST',
		key: suite.world.keys.all,
		body: { student_id: student.id, course_id: suite.world.courses.intro.id },
	});
	expect(reply.status).toBe(201);
}

describe('subscribing', () => {
	test('a manage:webhooks key alone can subscribe to nothing: "*" is 403 as the feed is', async () => {
		const { secret } = await keyWith(['manage:webhooks']);
		const feed = await call(suite.server, '/api/v1/events', { key: secret });
		expectProblem(feed, 403, 'insufficient_scope');
		const reply = await subscribe(secret, ['*']);
		expectProblem(reply, 403, 'insufficient_scope');
		expect(reply.body.detail).toBe(feed.body.detail);
		expectProblem(await subscribe(secret, ['user.created']), 403, 'insufficient_scope');
		expect(await WebhookEndpoint.count()).toBe(0);
	});

	test('a named type the key cannot read is 403 naming its scope; one it can read is 201', async () => {
		const { secret } = await keyWith(['manage:webhooks', 'read:enrollments']);
		const refused = await subscribe(secret, ['enrollment.completed', 'user.created']);
		expectProblem(refused, 403, 'insufficient_scope');
		expect(refused.body.required_scope).toBe('read:users');
		expect((await subscribe(secret, ['enrollment.completed', 'certificate.issued'])).status).toBe(201);
	});
});

describe('delivering', () => {
	test('"*" means every type the key can see: enrollments, not users', async () => {
		const { secret } = await keyWith(['manage:webhooks', 'read:enrollments']);
		const created = await subscribe(secret, ['*']);
		expect(created.status).toBe(201);
		expect(created.body.events).toEqual(['*']);
		const user = await newUser();
		await enroll();
		const [request] = await suite.receiver.waitFor(1);
		expect(request.headers['lms-event-type']).toBe('enrollment.created');
		// Deliveries are written with their event: the user's event, committed before, has none.
		expect(await WebhookDelivery.count({ where: { endpointId: created.body.id } })).toBe(1);
		expect(JSON.stringify(suite.receiver.received)).not.toContain(user.email);
	});

	test('a key whose scopes shrink stops receiving, from the next event and for the next attempt', async () => {
		const key = await keyWith(['manage:webhooks', 'read:enrollments']);
		// The first attempt fails, so a retry is owed when the scopes shrink.
		suite.receiver.answer((_r, res) => res.writeHead(503).end());
		const { body: endpoint } = await subscribe(key.secret, ['enrollment.created']);
		await enroll();
		await suite.receiver.waitFor(1);
		await ApiKey.update({ scopes: 'read:users manage:webhooks' }, { where: { id: key.id } });
		suite.receiver.answer((_r, res) => res.writeHead(200).end());
		const [owed] = await waitUntil(async () => {
			const rows = await WebhookDelivery.findAll({ where: { endpointId: endpoint.id } });
			return rows[0]?.status === 'failed' ? rows : undefined;
		}, { what: 'the retry to be refused' });
		expect(owed.lastError).toBe("the endpoint's API key cannot read enrollment.created");
		expect(suite.receiver.received).toHaveLength(1);

		await enroll();
		expect(await WebhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(1);
	});

	test('an endpoint of a key that can read users gets user.created', async () => {
		const { secret } = await keyWith(['manage:webhooks', 'read:users']);
		await subscribe(secret, ['*']);
		const user = await newUser();
		const [request] = await suite.receiver.waitFor(1);
		expect(JSON.parse(request.body)).toMatchObject({ type: 'user.created', data: { object: { id: user.id } } });
	});
});
