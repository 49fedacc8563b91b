import type { Logger } from 'pino';
import { Op } from 'sequelize';

import { Sealer } from '../common/seal';
import type { WebhookConfig } from '../config';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { WebhookEndpoint } from './model';

/**
 * Webhook signing secrets at rest (issue 27, finding 6). The server must compute an HMAC with
 * each secret, so it cannot keep a hash as it does for API keys; it keeps the secret sealed
 * (common/seal.ts) under a key derived from SEALING_SECRET (default SESSION_SECRET), bound to the
 * endpoint's id. A database dump, a backup or a read-only SQL injection then yields no secret
 * that can forge deliveries. Endpoints made before this (migration 0015) held plaintext
 * (`whsec_…`); `sealWebhookSecrets` seals those at start, and re-seals under the current secret
 * whatever a previous one sealed (a rotation, see docs/webhooks.md).
 */

const LABEL = 'lms webhooks: signing secrets';
const PLAINTEXT = 'whsec_';

const sealers = new WeakMap<readonly string[], Sealer>();

function secretSealer(config: Pick<WebhookConfig, 'sealingSecrets'>): Sealer {
	let sealer = sealers.get(config.sealingSecrets);
	if (!sealer) {
		sealer = new Sealer(LABEL, config.sealingSecrets);
		sealers.set(config.sealingSecrets, sealer);
	}
	return sealer;
}

export function sealSecret(config: Pick<WebhookConfig, 'sealingSecrets'>, endpointId: string, secret: string): string {
	return secretSealer(config).seal(endpointId, secret);
}

/** The endpoint's secret in clear, for signing; throws if no secret this server has can open it. */
export function openSecret(config: Pick<WebhookConfig, 'sealingSecrets'>, endpoint: Pick<WebhookEndpoint, 'id' | 'secret'>): string {
	// Not sealed yet: a start with migrations skipped, before `lms-server migrate` sealed it.
	if (endpoint.secret.startsWith(PLAINTEXT)) return endpoint.secret;
	return secretSealer(config).open(endpoint.id, endpoint.secret);
}

/**
 * The secrets that sign a delivery now: the current one, then, for 24 h after a rotation
 * (webhooks/rotate-secret.ts), the previous one. Each `v1=` of LMS-Signature is one of them.
 */
export function signingSecrets(
	config: Pick<WebhookConfig, 'sealingSecrets'>,
	endpoint: Pick<WebhookEndpoint, 'id' | 'secret' | 'previousSecret' | 'previousSecretUntil'>,
	now = new Date(),
): string[] {
	const secrets = [openSecret(config, endpoint)];
	if (endpoint.previousSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil.getTime() > now.getTime()) {
		secrets.push(openSecret(config, { id: endpoint.id, secret: endpoint.previousSecret }));
	}
	return secrets;
}

export interface SealReport {
	/** Plaintext secrets sealed, and secrets re-sealed from a previous SEALING_SECRET. */
	sealed: number;
	/** Secrets no configured secret can open (SEALING_SECRET changed without SEALING_SECRET_PREVIOUS). */
	unreadable: number;
}

/**
 * Seals every plaintext secret and re-seals under the current secret what a previous one sealed,
 * one row at a time; each update is conditional on the value read, so instances starting at once
 * never overwrite each other's work. Idempotent: on an up-to-date database it is one read.
 */
export async function sealWebhookSecrets(config: Pick<WebhookConfig, 'sealingSecrets'>, logger?: Logger): Promise<SealReport> {
	const sealer = secretSealer(config);
	const rows = await WebhookEndpoint.findAll({ attributes: ['id', 'secret', 'previousSecret'] });
	const report: SealReport = { sealed: 0, unreadable: 0 };
	// The current secret, and the previous one that still signs after a rotation, alike.
	for (const column of ['secret', 'previousSecret'] as const) {
		for (const row of rows) {
			const value = row[column];
			if (value === null || sealer.isCurrent(value)) continue;
			if (!value.startsWith(PLAINTEXT) && !sealer.canOpen(value)) {
				report.unreadable++;
				continue;
			}
			const sealed = sealer.seal(row.id, openSecret(config, { id: row.id, secret: value }));
			await writeTransaction(database(), (transaction) =>
				WebhookEndpoint.update({ [column]: sealed }, { where: { id: row.id, [column]: { [Op.eq]: value } }, transaction, silent: true }),
			);
			report.sealed++;
		}
	}
	if (report.sealed > 0) logger?.info({ sealed: report.sealed }, 'webhook signing secrets sealed under the current SEALING_SECRET');
	if (report.unreadable > 0) {
		logger?.error(
			{ unreadable: report.unreadable },
			'webhook signing secrets sealed under a secret this server does not have: their deliveries fail until SEALING_SECRET_PREVIOUS names the secret they were sealed with (docs/webhooks.md)',
		);
	}
	return report;
}
