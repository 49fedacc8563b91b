import type { Request } from 'express';
import { Op } from 'sequelize';

import type { Scope } from '../api-keys/model';
import { Sealer } from '../common/seal';
import { OneTimeKeyRow } from './one-time-key-model';

/**
 * A new key's secret (or a webhook endpoint's signing secret) has to survive one redirect (POST → 303 → GET), so that a reload or the
 * Back button can never show it again. It waits in `one_time_keys`, never in the clear: sealed
 * with AES-256-GCM under a key derived from SESSION_SECRET (and bound to its row id); the session
 * holds only the row id. The page that shows it claims the row with a DELETE, and only the
 * request whose DELETE removed the row shows the secret: concurrent requests of one session
 * read the same session, so the session alone could not make "once" atomic. An unread one
 * expires quickly.
 */
interface OneTimeKey {
	keyId: string;
	label: string;
	scopes: Scope[];
	masked: string;
	action: 'created' | 'rotated';
	secret: string;
	/** After a rotation: the webhook endpoints that passed to the new key. */
	movedEndpoints?: Array<{ id: string; url: string }>;
	/** After a rotation with `expire_old_after`: until when the old key keeps working (ISO 8601). */
	previousUntil?: string;
}

/** A webhook endpoint's signing secret, new or rotated on Settings → Webhooks: shown once the same way. */
export interface OneTimeWebhookSecret {
	kind: 'webhook';
	endpointId: string;
	url: string;
	action: 'created' | 'rotated';
	secret: string;
	/** After a rotation: until when the old secret still signs (ISO 8601). */
	previousUntil?: string;
}

export type OneTimeSecret = OneTimeKey | OneTimeWebhookSecret;

/** Whether what was taken is a webhook secret (an API key has no `kind`). */
export function isWebhookSecret(shown: OneTimeSecret): shown is OneTimeWebhookSecret {
	return 'kind' in shown && shown.kind === 'webhook';
}

const MAX_AGE_MS = 10 * 60 * 1000;

export class OneTimeKeyBox {
	private readonly sealer: Sealer;

	constructor(sessionSecret: string) {
		this.sealer = new Sealer('lms settings: one-time key display', [sessionSecret]);
	}

	async put(req: Request, shown: OneTimeSecret): Promise<void> {
		// Unread ones from anybody are worthless after MAX_AGE_MS: clear them on the way.
		await OneTimeKeyRow.destroy({ where: { createdAt: { [Op.lt]: new Date(Date.now() - MAX_AGE_MS) } } });
		const row = OneTimeKeyRow.build({ sealed: '' });
		row.sealed = this.seal(row.id, JSON.stringify(shown));
		await row.save();
		req.session.oneTimeKey = row.id;
	}

	/** The secret to show, at most once across every request of the session; gone whatever happens. */
	async take(req: Request): Promise<OneTimeSecret | undefined> {
		const id = req.session.oneTimeKey;
		if (!id) return undefined;
		delete req.session.oneTimeKey;
		const row = await OneTimeKeyRow.findByPk(id);
		if (!row) return undefined;
		const claimed = await OneTimeKeyRow.destroy({ where: { id } });
		if (claimed !== 1 || Date.now() - row.createdAt.getTime() > MAX_AGE_MS) return undefined;
		try {
			return JSON.parse(this.open(id, row.sealed)) as OneTimeSecret;
		} catch {
			// Sealed under another SESSION_SECRET (a restart in development): nothing to show.
			return undefined;
		}
	}

	private seal(id: string, text: string): string {
		return this.sealer.seal(id, text);
	}

	private open(id: string, sealed: string): string {
		return this.sealer.open(id, sealed);
	}
}
