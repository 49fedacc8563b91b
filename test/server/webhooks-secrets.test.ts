import { createHmac } from 'node:crypto';

import { loadConfig } from '../../server/src/config';
import { WebhookEndpoint } from '../../server/src/db';
import { createUser } from '../../server/src/users/service';
import { openSecret, sealWebhookSecrets } from '../../server/src/webhooks/secrets';
import { runCli } from '../helpers/cli';
import { startReceiver, type Receiver } from '../helpers/receiver';
import type { TestServer } from '../helpers/server';
import { call, NO_LIMIT, startApiServer, type World } from './api-fixtures';

/**
 * Issue 27, finding 6: signing secrets are sealed at rest (common/seal.ts, the mechanism that
 * already keeps a new API key until the page that shows it once), plaintext ones from before
 * migration 0015 are sealed, and the sealing secret can be rotated with SEALING_SECRET_PREVIOUS.
 */
const SEALING_SECRET = 'a-sealing-secret-of-the-test-server-0001';
const NEXT_SECRET = 'the-next-sealing-secret-after-a-rotation-02';

let server: TestServer;
let world: World;
let receiver: Receiver;

beforeAll(async () => {
	receiver = await startReceiver();
	({ server, world } = await startApiServer({ ...NO_LIMIT, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_MS: '50', SEALING_SECRET }));
});
afterAll(async () => {
	await server.stop();
	await receiver.close();
});
afterEach(() => WebhookEndpoint.destroy({ where: {} }));

const configWith = (env: Record<string, string>) => loadConfig(env).webhooks;

async function subscribe(): Promise<{ id: string; secret: string }> {
	const reply = await call(server, '/api/v1/webhook_endpoints', { method: 'POST', key: world.keys.all, body: { url: receiver.url, events: ['*'] } });
	if (reply.status !== 201) throw new Error(`${reply.status}: ${server.logs().slice(-3000)}`);
	return reply.body;
}

let made = 0;
/** A change that emits an event every endpoint gets; resolves with the request the receiver got for it. */
async function deliveredSignature(): Promise<{ body: string; signature: string }> {
	const before = receiver.received.length;
	await createUser({ organization: world.acme, email: `sealed${++made}@acme.example`, name: `Sealed ${made}`, role: 'student' });
	const request = (await receiver.waitFor(before + 1))[before];
	return { body: request.body, signature: String(request.headers['lms-signature']) };
}

function verifies(secret: string, { body, signature }: { body: string; signature: string }): boolean {
	const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(signature) ?? [];
	return v1 === createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
}

test('the secret is stored sealed, bound to its row, and deliveries are signed with it', async () => {
	const { id, secret } = await subscribe();
	const stored = (await WebhookEndpoint.findByPk(id))!.secret;
	expect(stored).not.toContain(secret);
	expect(stored).not.toMatch(/whsec_/);
	expect(verifies(secret, await deliveredSignature())).toBe(true);
	// Bound to its row: moved onto another endpoint it does not open.
	expect(() => openSecret(configWith({ SEALING_SECRET }), { id: 'whe_another', secret: stored })).toThrow();
});

test('a plaintext secret from before the migration is sealed by `migrate` (as at start), and still signs', async () => {
	const { id, secret } = await subscribe();
	await WebhookEndpoint.update({ secret }, { where: { id } });
	// Unsealed, the worker still signs with it (a server started with --no-migrate).
	expect(verifies(secret, await deliveredSignature())).toBe(true);

	const cli = await runCli(['migrate'], { env: { DATABASE_URL: server.databaseUrl, SEALING_SECRET } });
	expect(cli).toMatchObject({ code: 0, stdout: expect.stringContaining('Sealed 1 webhook signing secret') });
	const stored = (await WebhookEndpoint.findByPk(id))!.secret;
	expect(stored).not.toContain(secret);
	expect(openSecret(configWith({ SEALING_SECRET }), { id, secret: stored })).toBe(secret);
	expect(await sealWebhookSecrets(configWith({ SEALING_SECRET }))).toEqual({ sealed: 0, unreadable: 0 });
	expect(verifies(secret, await deliveredSignature())).toBe(true);
});

test('rotating the sealing secret: the previous one opens, the start re-seals, then it can go', async () => {
	const { id, secret } = await subscribe();
	const rotating = configWith({ SEALING_SECRET: NEXT_SECRET, SEALING_SECRET_PREVIOUS: SEALING_SECRET });
	// A server given only the new secret cannot open it, and says so rather than crash.
	expect(await sealWebhookSecrets(configWith({ SEALING_SECRET: NEXT_SECRET }))).toEqual({ sealed: 0, unreadable: 1 });

	expect(await sealWebhookSecrets(rotating)).toEqual({ sealed: 1, unreadable: 0 });
	const stored = (await WebhookEndpoint.findByPk(id))!.secret;
	expect(openSecret(configWith({ SEALING_SECRET: NEXT_SECRET }), { id, secret: stored })).toBe(secret);
	expect(() => openSecret(configWith({ SEALING_SECRET }), { id, secret: stored })).toThrow();
	expect(await sealWebhookSecrets(configWith({ SEALING_SECRET: NEXT_SECRET }))).toEqual({ sealed: 0, unreadable: 0 });
});

test('SEALING_SECRET defaults to SESSION_SECRET; bad values stop the start naming the variable', () => {
	const session = 'a-session-secret-of-at-least-32-characters';
	expect(configWith({ SESSION_SECRET: session }).sealingSecrets).toEqual([session]);
	expect(configWith({ SESSION_SECRET: session, SEALING_SECRET }).sealingSecrets).toEqual([SEALING_SECRET]);
	expect(() => loadConfig({ SEALING_SECRET: 'short' })).toThrow(/^SEALING_SECRET: /);
	expect(() => loadConfig({ SEALING_SECRET_PREVIOUS: 'short' })).toThrow(/^SEALING_SECRET_PREVIOUS: /);
});

// Last: on SQLite, reading the database's files from this process drops the server's POSIX locks
// on them (closing any descriptor of a file does), so no other process may write after it.
test('no signing secret is anywhere in the database files', async () => {
	const { secret } = await subscribe();
	expect((await server.storedBytes()).includes(Buffer.from(secret))).toBe(false);
});
