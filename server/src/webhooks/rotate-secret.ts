import type { Actor, Origin } from '../api-keys/audit';
import { randomBase62 } from '../common/ids';
import type { WebhookConfig } from '../config';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { WebhookEndpoint } from './model';
import { sealSecret } from './secrets';
import { auditEndpoint, findEndpoint, scopeOf, SECRET_PREFIX } from './service';

/** SPEC §19: after a rotation the old secret keeps signing beside the new one for this long. */
const PREVIOUS_SECRET_MS = 24 * 3_600_000;

export interface RotatedSecret {
	endpoint: WebhookEndpoint;
	/** The new secret, in clear: handed to the caller once. */
	secret: string;
	/** Until when the old secret still signs. */
	previousUntil: Date;
}

/**
 * Gives an endpoint a new signing secret. The old one becomes the previous secret and keeps
 * signing beside it (two `v1=` in `LMS-Signature`) for PREVIOUS_SECRET_MS, so a receiver can
 * switch to the new one without losing a delivery; both stay sealed at rest, bound to the
 * endpoint's id (webhooks/secrets.ts), and the old one is never shown again. A secret older than
 * that (the previous of an earlier rotation) is dropped. The row is locked, so of concurrent
 * rotations each sees the other's result: the secret each answers signs, as new or previous.
 * Audited as webhook.rotated. Undefined when there is no such endpoint.
 */
export async function rotateSecret(input: {
	organizationId: string;
	/** Through the API: the calling key, which reaches only its own endpoints. */
	ownerKeyId?: string;
	id: string;
	actor: Actor;
	origin?: Origin;
	config: Pick<WebhookConfig, 'sealingSecrets'>;
	now?: Date;
}): Promise<RotatedSecret | undefined> {
	const secret = SECRET_PREFIX + randomBase62(32);
	const sealed = sealSecret(input.config, input.id, secret);
	const now = input.now ?? new Date();
	const previousUntil = new Date(now.getTime() + PREVIOUS_SECRET_MS);
	return writeTransaction(database(), async (transaction) => {
		const found = await findEndpoint(scopeOf(input), input.id, transaction);
		if (!found) return undefined;
		const endpoint = (await WebhookEndpoint.findByPk(found.id, { transaction, lock: transaction.LOCK.UPDATE }))!;
		await endpoint.update({ previousSecret: endpoint.secret, previousSecretUntil: previousUntil, secret: sealed }, { transaction });
		await auditEndpoint('webhook.rotated', endpoint, input, transaction);
		return { endpoint, secret, previousUntil };
	});
}
