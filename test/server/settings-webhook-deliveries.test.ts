import { createKey } from '../../server/src/api-keys/lifecycle';
import { AuditEvent, Organization, WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint } from '../../server/src/db';
import { EVENT_DESCRIPTIONS } from '../../server/src/events/types';
import { queueTestEvent } from '../../server/src/webhooks/test-event';
import { PageClient, type PageResponse } from '../helpers/page-client';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait';
import { call, expectProblem } from './api-fixtures';

/**
 * Settings → Webhooks as GitHub's "Recent Deliveries" (SPEC §22, issue 39) over HTTP, without a
 * browser (test/browser/webhooks.test.ts drives the same pages in Chromium): an endpoint's page
 * lists its deliveries with filters and paging, a delivery opens to every attempt with the next
 * one when owed, Redeliver sends now whatever the state, an edit keeps the id and secret and
 * re-checks the URL policy, and nothing of another organization is reachable.
 */
let server: TestServer;
let receiver: Receiver;
let acmeId: string;

beforeAll(async () => {
	// Retries a minute apart: a failing delivery stays pending with a next attempt the page shows.
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_BASE_MS: '60000' } });
	receiver = await startReceiver();
	acmeId = (await Organization.findOne({ where: { slug: 'acme' } }))!.id;
}, 120_000);
afterAll(async () => {
	await receiver?.close();
	await server?.stop();
});

async function signedIn(organization: string): Promise<PageClient> {
	const { email, password } = server.demo!.accounts.find((a) => a.organization === organization && a.role === 'super_admin')!;
	const client = new PageClient(server.baseUrl);
	expect(PageClient.signInOutcome(await client.signIn(email, password))).toBe('signed-in');
	return client;
}

/** Adds an endpoint on the page, as a person would; its id. */
async function addEndpoint(client: PageClient, url: string, events = ['*']): Promise<string> {
	const form = await client.get('/settings/webhooks');
	const before = new Set((await WebhookEndpoint.findAll({ attributes: ['id'] })).map((e) => e.id));
	const reply = await client.post('/settings/webhooks', { _csrf: PageClient.csrfToken(form), url, events, description: 'page test' });
	expect(reply.status).toBe(303);
	const made = (await WebhookEndpoint.findAll({ where: { url } })).find((e) => !before.has(e.id));
	return made!.id;
}

const rowsOf = (page: PageResponse) => [...page.body.matchAll(/<tr data-event-id="[^"]+" data-delivery-id="(whd_[A-Za-z0-9]+)"/g)].map((m) => m[1]);

async function post(client: PageClient, pagePath: string, action: string): Promise<PageResponse> {
	return client.post(action, { _csrf: PageClient.csrfToken(await client.get(pagePath)) });
}

test("an endpoint's page: deliveries newest first, 25 a page, filtered by status, event type and days", async () => {
	const client = await signedIn('acme');
	const id = await addEndpoint(client, receiver.url);
	const sent = receiver.received.length;
	for (let i = 0; i < 26; i++) await queueTestEvent(acmeId, id);
	await receiver.waitFor(sent + 26);
	await waitUntil(async () => (await WebhookDelivery.count({ where: { endpointId: id, status: 'delivered' } })) === 26, { what: '26 delivered' });

	const first = await client.get(`/settings/webhooks/${id}`);
	expect(first.status).toBe(200);
	expect(rowsOf(first)).toHaveLength(25);
	expect(first.body).toContain('1–25 of 26 deliveries (page 1 of 2)');
	expect(first.body).toContain(`href="/settings/webhooks/${id}?page=2" rel="next"`);
	const second = await client.get(`/settings/webhooks/${id}?page=2`);
	expect(rowsOf(second)).toHaveLength(1);
	expect(new Set([...rowsOf(first), ...rowsOf(second)]).size).toBe(26);

	// One delivery made on 15 January: the day range finds it alone, both ends included.
	const [oldest] = rowsOf(second);
	await WebhookDelivery.update({ createdAt: new Date('2026-01-15T23:59:00Z') }, { where: { id: oldest }, silent: true });
	expect(rowsOf(await client.get(`/settings/webhooks/${id}?from=2026-01-15&to=2026-01-15`))).toEqual([oldest]);
	expect(rowsOf(await client.get(`/settings/webhooks/${id}?to=2026-01-14`))).toEqual([]);
	expect(rowsOf(await client.get(`/settings/webhooks/${id}?from=2026-01-16`))).toHaveLength(25);
	// Filters kept by the paging links.
	expect((await client.get(`/settings/webhooks/${id}?event_type=webhook.test`)).body).toContain(`href="/settings/webhooks/${id}?event_type=webhook.test&amp;page=2"`);
	const none = await client.get(`/settings/webhooks/${id}?status=failed&event_type=user.created`);
	expect(rowsOf(none)).toEqual([]);
	expect(none.body).toContain('No delivery matches these filters.');

	for (const [query, sentence] of [
		['status=lost', 'Choose a status from the list.'],
		['event_type=user.*', 'Choose an event type from the list.'],
		['from=2026-02-30', 'Enter dates as YYYY-MM-DD'],
		['from=2026-03-02&to=2026-03-01', 'The From date must be on or before the To date.'],
		['page=0', 'The page number must be a whole number from 1.'],
	]) {
		const refused = await client.get(`/settings/webhooks/${id}?${query}`);
		expect({ query, status: refused.status }).toEqual({ query, status: 400 });
		expect(refused.body).toContain(sentence);
	}
}, 60_000);

test('a delivery opens to its attempts and next attempt; Redeliver sends it now, failing or not, and the schedule continues', async () => {
	const client = await signedIn('acme');
	const id = await addEndpoint(client, receiver.url);
	receiver.answer((_r, res) => res.writeHead(503, { 'Content-Type': 'text/plain' }).end('warehouse is down'));
	const sent = receiver.received.length;
	const delivery = (await queueTestEvent(acmeId, id))!;
	await receiver.waitFor(sent + 1);
	const path = `/settings/webhooks/${id}/deliveries/${delivery.id}`;
	await waitUntil(async () => (await WebhookDeliveryAttempt.count({ where: { deliveryId: delivery.id } })) === 1, { what: 'first attempt kept' });

	let page = await client.get(path);
	expect(page.status).toBe(200);
	expect(page.body).toMatch(/class="result">Retrying/);
	expect(page.body).toMatch(/id="next-attempt"><time datetime="[^"]+"/);
	expect(page.body).toContain('HTTP 503');
	// A loopback receiver: only the status and size of its answer are kept (SPEC §22).
	expect(page.body).toContain('response-body-not-kept');
	expect(page.body).not.toContain('warehouse is down');
	// The request: its headers (signature included) and the body, the event as posted.
	expect(page.body).toContain('LMS-Signature: t=');
	expect(page.body).toContain('id="request-body"');
	expect(page.body).toContain(delivery.eventId);
	// Listed on the endpoint's page with its next attempt.
	expect((await client.get(`/settings/webhooks/${id}`)).body).toMatch(/next attempt <time/);

	// Redeliver while it waits a minute for its next attempt: sent now, still pending after, its count going on.
	receiver.answer((_r, res) => res.writeHead(500).end());
	const redelivered = await post(client, path, `${path}/redeliver`);
	expect(redelivered.status).toBe(303);
	expect(redelivered.headers.location).toBe(path);
	await receiver.waitFor(sent + 2);
	await waitUntil(async () => (await WebhookDeliveryAttempt.count({ where: { deliveryId: delivery.id } })) === 2, { what: 'second attempt kept' });
	const after = (await WebhookDelivery.findByPk(delivery.id))!;
	expect({ status: after.status, attempts: after.attempts }).toEqual({ status: 'pending', attempts: 2 });
	page = await client.get(path);
	expect(page.body).toContain('is being sent again now');
	expect(page.body.match(/<details class="exchange attempt" data-attempt="/g)).toHaveLength(2);
	expect(page.body).toContain('HTTP 500');

	// Finished (failed) deliveries are redelivered too.
	receiver.answer((_r, res) => res.writeHead(200).end('ok'));
	await WebhookDelivery.update({ status: 'failed' }, { where: { id: delivery.id } });
	expect((await post(client, path, `${path}/redeliver`)).status).toBe(303);
	await waitUntil(async () => (await WebhookDelivery.findByPk(delivery.id))!.status === 'delivered', { what: 'delivered on redelivery' });
	page = await client.get(path);
	expect(page.body).toMatch(/class="result">Delivered/);
	expect(page.body).not.toContain('id="next-attempt"');
	expect(page.body.match(/data-attempt="/g)).toHaveLength(3);
}, 60_000);

test("another organization's endpoint and delivery are a 404 on every page and action, and nothing is sent", async () => {
	const acme = await signedIn('acme');
	const globex = await signedIn('globex');
	const theirs = await addEndpoint(globex, receiver.url);
	const delivery = (await queueTestEvent((await Organization.findOne({ where: { slug: 'globex' } }))!.id, theirs))!;
	await waitUntil(async () => (await WebhookDeliveryAttempt.count({ where: { deliveryId: delivery.id } })) === 1, { what: 'globex delivery sent' });
	const ours = await addEndpoint(acme, receiver.url);
	const token = PageClient.csrfToken(await acme.get('/settings/webhooks'));

	for (const path of [`/settings/webhooks/${theirs}`, `/settings/webhooks/${theirs}/edit`, `/settings/webhooks/${theirs}/deliveries/${delivery.id}`, `/settings/webhooks/${ours}/deliveries/${delivery.id}`]) {
		expect({ path, status: (await acme.get(path)).status }).toEqual({ path, status: 404 });
	}
	for (const path of [`/settings/webhooks/${theirs}/deliveries/${delivery.id}/redeliver`, `/settings/webhooks/${ours}/deliveries/${delivery.id}/redeliver`]) {
		expect({ path, status: (await acme.post(path, { _csrf: token })).status }).toEqual({ path, status: 404 });
	}
	expect((await acme.post(`/settings/webhooks/${theirs}/edit`, { _csrf: token, url: 'https://example.com/x', events: '*' })).status).toBe(404);
	expect((await WebhookEndpoint.findByPk(theirs))!.url).toBe(receiver.url);
	expect(await WebhookDeliveryAttempt.count({ where: { deliveryId: delivery.id } })).toBe(1);
	expect((await acme.get('/settings/webhooks/whe_nonexistent/deliveries/not-an-id')).status).toBe(404);
});

test('edit keeps the id and secret; a forbidden URL is refused with what was typed, and nothing changes', async () => {
	const client = await signedIn('acme');
	const id = await addEndpoint(client, receiver.url, ['user.created']);
	const before = (await WebhookEndpoint.findByPk(id))!;
	const edit = await client.get(`/settings/webhooks/${id}/edit`);
	expect(edit.status).toBe(200);
	// The picker says what each type is.
	expect(edit.body).toContain(EVENT_DESCRIPTIONS['enrollment.overdue']);
	expect(edit.body).toMatch(/value="user.created" aria-describedby="event-help-\d+" checked/);
	const token = PageClient.csrfToken(edit);

	const refused = await client.post(`/settings/webhooks/${id}/edit`, { _csrf: token, url: 'http://169.254.169.254/latest/meta-data', events: 'enrollment.completed', description: 'metadata' });
	// Post/redirect/get: back to the edit page, which shows the reason and what was typed, once.
	expect({ status: refused.status, location: refused.headers.location }).toEqual({ status: 303, location: `/settings/webhooks/${id}/edit` });
	const again = await client.get(`/settings/webhooks/${id}/edit`);
	expect(again.body).toMatch(/id="form-error">[^<]*not a public address/);
	expect(again.body).toContain('value="http://169.254.169.254/latest/meta-data"');
	expect(again.body).toMatch(/value="enrollment.completed" aria-describedby="event-help-\d+" checked/);
	expect((await client.get(`/settings/webhooks/${id}/edit`)).body).not.toContain('id="form-error"');
	const noEvents = await client.post(`/settings/webhooks/${id}/edit`, { _csrf: token, url: receiver.url });
	expect(noEvents.status).toBe(303);
	expect((await client.get(`/settings/webhooks/${id}/edit`)).body).toContain('Choose at least one event type');
	const unchanged = (await WebhookEndpoint.findByPk(id))!;
	expect({ url: unchanged.url, events: unchanged.events, description: unchanged.description }).toEqual({ url: before.url, events: before.events, description: before.description });

	const newUrl = receiver.url.replace('/hook', '/hook-edited');
	const saved = await client.post(`/settings/webhooks/${id}/edit`, { _csrf: token, url: newUrl, events: ['enrollment.completed', 'group.member_added'], description: '' });
	expect(saved.status).toBe(303);
	expect(saved.headers.location).toBe(`/settings/webhooks/${id}`);
	const after = (await WebhookEndpoint.findByPk(id))!;
	expect({ url: after.url, description: after.description, secret: after.secret }).toEqual({ url: newUrl, description: null, secret: before.secret });
	expect(await AuditEvent.count({ where: { action: 'webhook.updated', webhookEndpointId: id } })).toBe(1);
	expect((await client.get(`/settings/webhooks/${id}`)).body).toContain('Its ID and signing secret are unchanged.');
});

test("an edit on the page re-checks the owner key's scopes as the API's PATCH does: no event type the key cannot read", async () => {
	const { secret } = await createKey({ organizationId: acmeId, label: 'enrollments hook', scopes: ['read:enrollments', 'manage:webhooks'], actor: { kind: 'cli' } });
	const made = await call(server, '/api/v1/webhook_endpoints', { method: 'POST', key: secret, body: { url: receiver.url, events: ['enrollment.completed'] } });
	expect(made.status).toBe(201);
	const id = made.body.id as string;
	// The API: the owner key asks for a type it cannot read.
	expectProblem(await call(server, `/api/v1/webhook_endpoints/${id}`, { method: 'PATCH', key: secret, body: { events: ['user.created'] } }), 403, 'insufficient_scope');

	// The page: a Super Admin reads every type, but the endpoint is still the key's.
	const client = await signedIn('acme');
	const token = PageClient.csrfToken(await client.get(`/settings/webhooks/${id}/edit`));
	for (const events of [['enrollment.completed', 'user.created'], ['group.member_added']]) {
		const refused = await client.post(`/settings/webhooks/${id}/edit`, { _csrf: token, url: receiver.url, events });
		expect({ status: refused.status, location: refused.headers.location }).toEqual({ status: 303, location: `/settings/webhooks/${id}/edit` });
		expect((await client.get(`/settings/webhooks/${id}/edit`)).body).toMatch(/id="form-error">[^<]*lacks the read:users scope/);
	}
	expect((await WebhookEndpoint.findByPk(id))!.eventList).toEqual(['enrollment.completed']);
	expect(await AuditEvent.count({ where: { action: 'webhook.updated', webhookEndpointId: id } })).toBe(0);

	// What the key can read is saved, from either door.
	const saved = await client.post(`/settings/webhooks/${id}/edit`, { _csrf: token, url: receiver.url, events: ['enrollment.completed', 'certificate.issued'] });
	expect(saved.headers.location).toBe(`/settings/webhooks/${id}`);
	expect((await WebhookEndpoint.findByPk(id))!.eventList).toEqual(['enrollment.completed', 'certificate.issued']);
	expect((await call(server, `/api/v1/webhook_endpoints/${id}`, { method: 'PATCH', key: secret, body: { events: ['*'] } })).status).toBe(200);
});
