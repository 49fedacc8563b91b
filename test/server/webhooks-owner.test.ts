import { ApiKey, AuditEvent } from '../../server/src/api-keys/model';
import { revokeKey } from '../../server/src/api-keys/lifecycle';
import { Organization, WebhookDelivery, WebhookEndpoint } from '../../server/src/db';
import { createUser } from '../../server/src/users/service';
import { pruneDeliveries } from '../../server/src/webhooks/retention';
import { setEndpointStatus } from '../../server/src/webhooks/set-status';
import { runCli } from '../helpers/cli';
import { PageClient } from '../helpers/page-client';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';
import { call, expectProblem } from './api-fixtures';

/**
 * Issue 27, finding 2: an endpoint has an owner and leaves a trace. The creating key, actor and
 * IP are stored; creation and deletion are in the keys page's audit log from every door (API,
 * settings page, CLI); revoking the key disables its endpoints, rotating it hands them to the
 * new key (and the pages say which); a deleted endpoint's deliveries stay until retention.
 */
let server: TestServer;
let receiver: Receiver;
let acme: Organization;

beforeAll(async () => {
	server = await startTestServer({
		env: { RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_BASE_MS: '200' },
	});
	acme = (await Organization.findOne({ where: { slug: 'acme' } }))!;
}, 120_000);
afterAll(() => server?.stop());
beforeEach(async () => (receiver = await startReceiver()));
afterEach(() => receiver.close());

const SCOPES = ['manage:webhooks', 'read:users'];

async function signedIn(): Promise<PageClient> {
	const { email, password } = server.demo!.accounts.find((a) => a.organization === 'acme' && a.role === 'super_admin')!;
	const client = new PageClient(server.baseUrl);
	expect(PageClient.signInOutcome(await client.signIn(email, password))).toBe('signed-in');
	return client;
}

async function subscribe(key: string): Promise<{ id: string; url: string }> {
	const reply = await call(server, '/api/v1/webhook_endpoints', { method: 'POST', key, body: { url: receiver.url, events: ['user.created'] } });
	expect(reply.status).toBe(201);
	return reply.body;
}

let made = 0;
const newUser = () => createUser({ organization: acme, email: `owner${++made}@acme.example`, name: `Owner ${made}`, role: 'student' });

const cli = (...args: string[]) => runCli(args, { env: { DATABASE_URL: server.databaseUrl } });

test('the creating key, actor and IP are stored; creation is in the keys page audit log', async () => {
	const key = await server.createKey('acme', SCOPES, 'n8n hooks');
	const endpoint = await subscribe(key.key);
	const row = (await WebhookEndpoint.findByPk(endpoint.id))!;
	expect(row).toMatchObject({ apiKeyId: key.id, createdBy: key.id, createdIp: expect.stringMatching(/127\.0\.0\.1$/) });
	const [audit] = await AuditEvent.findAll({ where: { webhookEndpointId: endpoint.id } });
	expect(audit).toMatchObject({ action: 'webhook.created', apiKeyId: key.id, actor: key.id, ip: expect.stringMatching(/127\.0\.0\.1$/) });

	const page = await (await signedIn()).get('/settings/api-keys');
	const log = page.body.slice(page.body.indexOf('id="audit-log"'));
	expect(log).toContain('Webhook endpoint created');
	expect(log).toContain(endpoint.url);
	expect(log).toContain('API key n8n hooks');
});

test('deletion is audited from every door (API, page, CLI), and the delivery log stays until retention', async () => {
	const key = await server.createKey('acme', SCOPES);
	const [byApi, byPage, byCli] = [await subscribe(key.key), await subscribe(key.key), await subscribe(key.key)];
	await newUser();
	await receiver.waitFor(3);
	await Promise.all(
		[byApi, byPage, byCli].map(({ id }) =>
			waitUntil(async () => (await WebhookDelivery.count({ where: { endpointId: id, status: 'delivered' } })) > 0, { what: 'delivered' }),
		),
	);

	expect((await call(server, `/api/v1/webhook_endpoints/${byApi.id}`, { method: 'DELETE', key: key.key })).status).toBe(204);
	const client = await signedIn();
	const confirm = await client.get(`/settings/webhooks/${byPage.id}/delete`);
	expect((await client.post(`/settings/webhooks/${byPage.id}/delete`, { _csrf: PageClient.csrfToken(confirm) })).status).toBe(303);
	expect(await cli('webhooks', 'delete', byCli.id)).toMatchObject({ code: 0 });

	const deletions = await AuditEvent.findAll({ where: { action: 'webhook.deleted', webhookEndpointId: [byApi.id, byPage.id, byCli.id] } });
	const actorOf = (id: string) => deletions.find((d) => d.webhookEndpointId === id)?.actor;
	expect(actorOf(byApi.id)).toBe(key.id);
	expect(actorOf(byPage.id)).toMatch(/^usr_/);
	expect(actorOf(byCli.id)).toBe('cli');
	const page = await client.get('/settings/api-keys');
	expect(page.body.split('Webhook endpoint deleted').length - 1).toBeGreaterThanOrEqual(3);

	for (const { id } of [byApi, byPage, byCli]) {
		expectProblem(await call(server, `/api/v1/webhook_endpoints/${id}`, { key: key.key }), 404, 'not_found');
		expect(await WebhookDelivery.count({ where: { endpointId: id } })).toBe(1);
	}
	const list = await call(server, '/api/v1/webhook_endpoints', { key: key.key });
	expect(list.body.data.map((e: { id: string }) => e.id)).not.toContain(byApi.id);
	// Nothing is sent to a deleted endpoint.
	const before = receiver.received.length;
	await newUser();
	expect(await WebhookDelivery.count({ where: { endpointId: [byApi.id, byPage.id, byCli.id] } })).toBe(3);
	expect(receiver.received.length).toBe(before);

	// Retention removes the deliveries, then the endpoints they kept.
	await pruneDeliveries(30, new Date(Date.now() + 31 * 24 * 3_600_000));
	expect(await WebhookDelivery.count({ where: { endpointId: [byApi.id, byPage.id, byCli.id] } })).toBe(0);
	expect(await WebhookEndpoint.count({ where: { id: [byApi.id, byPage.id, byCli.id] } })).toBe(0);
});

test('revoking the key disables its endpoints (the confirmation page says which); nothing more is sent', async () => {
	const key = await server.createKey('acme', SCOPES, 'to revoke');
	const endpoint = await subscribe(key.key);
	const other = await server.createKey('acme', SCOPES);
	const kept = await subscribe(other.key);

	const client = await signedIn();
	const confirm = await client.get(`/settings/api-keys/${key.id}/revoke`);
	expect(confirm.body).toContain('will be disabled');
	expect(confirm.body).toContain(endpoint.id);
	expect(confirm.body).not.toContain(kept.id);
	expect((await client.post(`/settings/api-keys/${key.id}/revoke`, { _csrf: PageClient.csrfToken(confirm) })).status).toBe(303);

	// A key reaches only its own endpoints (SPEC §22): the revoked key's is read from its row.
	expect((await WebhookEndpoint.findByPk(endpoint.id))!.status).toBe('disabled');
	expect((await call(server, `/api/v1/webhook_endpoints/${kept.id}`, { key: other.key })).body.status).toBe('enabled');
	await newUser();
	const [request] = await receiver.waitFor(1);
	// The one request is for the other key's endpoint; the revoked key's endpoint was owed nothing.
	expect(request).toBeDefined();
	expect(await WebhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(0);
	await WebhookEndpoint.destroy({ where: { id: [endpoint.id, kept.id] } });
});

test('an endpoint whose key has passed its expiry date is sent nothing, as for a revoked key', async () => {
	const key = await server.createKey('acme', SCOPES, 'to expire');
	const endpoint = await subscribe(key.key);
	await ApiKey.update({ expiresAt: new Date(Date.now() - 1000) }, { where: { id: key.id } });
	await newUser();
	// The attempt ends without a send: recorded failed, saying why; the receiver got nothing.
	const delivery = await waitUntil(async () => {
		const row = await WebhookDelivery.findOne({ where: { endpointId: endpoint.id } });
		return row?.status === 'failed' && row;
	}, { what: 'the delivery to end' });
	expect(delivery.lastError).toBe("the endpoint's API key is no longer active");
	expect(receiver.received).toHaveLength(0);
	await WebhookEndpoint.destroy({ where: { id: endpoint.id } });
});

test('rotating the key hands its endpoints to the new key, and the pages say which', async () => {
	const key = await server.createKey('acme', SCOPES, 'to rotate');
	const endpoint = await subscribe(key.key);
	const client = await signedIn();
	const confirm = await client.get(`/settings/api-keys/${key.id}/rotate`);
	expect(confirm.body).toContain('pass to the new key');
	expect(confirm.body).toContain(endpoint.url);
	const rotated = await client.post(`/settings/api-keys/${key.id}/rotate`, { _csrf: PageClient.csrfToken(confirm) });
	expect(rotated.status).toBe(303);
	const shown = await client.get(String(rotated.headers.location));
	expect(shown.body).toContain('id="moved-endpoints"');
	expect(shown.body).toContain(endpoint.url);

	const row = (await WebhookEndpoint.findByPk(endpoint.id))!;
	expect(row.apiKeyId).not.toBe(key.id);
	expect(row.status).toBe('enabled');
	await newUser();
	await receiver.waitFor(1);
	await WebhookEndpoint.destroy({ where: { id: endpoint.id } });
});

test('a creation racing the revocation of its key never leaves an enabled endpoint of a revoked key', async () => {
	for (let round = 0; round < 8; round++) {
		const key = await server.createKey('acme', SCOPES, `race ${round}`);
		const [created] = await Promise.all([
			call(server, '/api/v1/webhook_endpoints', { method: 'POST', key: key.key, body: { url: receiver.url, events: ['user.created'] } }),
			revokeKey({ keyId: key.id, actor: { kind: 'cli' } }),
		]);
		expect([201, 401]).toContain(created.status);
		expect(await WebhookEndpoint.count({ where: { apiKeyId: key.id, status: 'enabled' } })).toBe(0);
	}
	await WebhookEndpoint.destroy({ where: {} });
});

test('enabling an endpoint (Settings → Webhooks) racing the revocation of its key never leaves it enabled under a revoked key', async () => {
	const actor = { kind: 'cli' } as const;
	for (let round = 0; round < 8; round++) {
		const key = await server.createKey('acme', SCOPES, `enable race ${round}`);
		const { id } = await subscribe(key.key);
		await setEndpointStatus({ organizationId: acme.id, id, status: 'disabled', actor });
		const [enabled] = await Promise.allSettled([
			setEndpointStatus({ organizationId: acme.id, id, status: 'enabled', actor }),
			revokeKey({ keyId: key.id, actor }),
		]);
		// Either the enable committed first (then the revocation disabled it) or it was refused.
		if (enabled.status === 'rejected') expect((enabled.reason as { code?: string }).code).toBe('endpoint_key_inactive');
		expect((await WebhookEndpoint.findByPk(id))!.status).toBe('disabled');
	}
	await WebhookEndpoint.destroy({ where: {} });
});
