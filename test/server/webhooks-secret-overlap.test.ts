import { createHmac } from 'node:crypto';

import { WebhookDelivery, WebhookEndpoint } from '../../server/src/db';
import { rotateSecret } from '../../server/src/webhooks/rotate-secret';
import { signingSecrets } from '../../server/src/webhooks/secrets';
import { webhookSuite } from '../helpers/webhook-suite';
import { call } from './api-fixtures';

/**
 * SPEC §22: rotating a webhook secret again within 24 h keeps the secret that is current at that
 * moment valid for 24 h, never fewer than the newest two signing. Rotated at T and again at
 * T + 1 h (rotate-secret.ts takes `now`; T is an hour ago here, so the second rotation is now):
 * deliveries carry the newest two signatures, the first secret signs no more, and 24 h after the
 * second rotation only the newest one is left.
 */
const SEAL = 'overlap-test-sealing-secret-0123456789abcdef';
const suite = webhookSuite({ WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_POLL_MS: '100', SEALING_SECRET: SEAL });
afterEach(() => WebhookDelivery.destroy({ where: {} }));

const HOUR = 3_600_000;
const config = { sealingSecrets: [SEAL] };

let people = 0;
async function newUser(): Promise<void> {
	people += 1;
	const reply = await call(suite.server, '/api/v1/users', { method: 'POST', key: suite.world.keys.all, body: { name: `Overlap ${people}`, email: `overlap${people}@acme.example` } });
	expect(reply.status).toBe(201);
}

/** The secrets among `secrets` that made one of the header's `v1=`. */
function signers(header: string, body: string, secrets: Record<string, string>): string[] {
	const [t, ...v1] = header.split(',').map((part) => part.split('=')[1]);
	return Object.entries(secrets)
		.filter(([, secret]) => v1.includes(createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')))
		.map(([name]) => name);
}

test('rotate at T, again at T + 1 h: the newest two sign, the first drops; 24 h after the second, the newest alone', async () => {
	const created = await call(suite.server, '/api/v1/webhook_endpoints', { method: 'POST', key: suite.world.keys.all, body: { url: suite.receiver.url, events: ['user.created'] } });
	expect(created.status).toBe(201);
	const id: string = created.body.id;
	const s0: string = created.body.secret;
	const organizationId = suite.world.acme.id;
	const actor = { kind: 'cli' } as const;
	const t = new Date(Date.now() - HOUR);

	const first = (await rotateSecret({ organizationId, id, actor, config, now: t }))!;
	expect(first.previousUntil.getTime()).toBe(t.getTime() + 24 * HOUR);
	const s1 = first.secret;
	const second = (await rotateSecret({ organizationId, id, actor, config, now: new Date(t.getTime() + HOUR) }))!;
	const s2 = second.secret;
	// The secret current at the second rotation (s1) keeps signing 24 h from then, not from T.
	expect(second.previousUntil.getTime()).toBe(t.getTime() + 25 * HOUR);
	const all = { s0, s1, s2 };

	await newUser();
	const [during] = await suite.receiver.waitFor(1);
	const header = String(during.headers['lms-signature']);
	expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
	expect(signers(header, during.body, all)).toEqual(['s1', 's2']);

	// What signs at each moment, from the stored row: s0's 24 h would have run to T + 24 h, but it
	// dropped at the second rotation; s1 signs until T + 25 h; after that s2 alone.
	const endpoint = (await WebhookEndpoint.findByPk(id))!;
	const signingAt = (ms: number) => signingSecrets(config, endpoint, new Date(t.getTime() + ms)).map((secret) => Object.entries(all).find(([, s]) => s === secret)![0]);
	expect(signingAt(2 * HOUR)).toEqual(['s2', 's1']);
	expect(signingAt(24 * HOUR + 1)).toEqual(['s2', 's1']);
	expect(signingAt(25 * HOUR - 1)).toEqual(['s2', 's1']);
	expect(signingAt(25 * HOUR)).toEqual(['s2']);

	// 24 h after the second rotation (its previous_until moved to the past), deliveries carry s2 alone.
	await WebhookEndpoint.update({ previousSecretUntil: new Date(Date.now() - 1000) }, { where: { id } });
	await newUser();
	const [, after] = await suite.receiver.waitFor(2);
	const afterHeader = String(after.headers['lms-signature']);
	expect(afterHeader).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
	expect(signers(afterHeader, after.body, all)).toEqual(['s2']);
});
