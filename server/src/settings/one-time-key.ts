import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { Op } from 'sequelize';

import type { Scope } from '../api-keys/model';
import { OneTimeKeyRow } from './one-time-key-model';

/**
 * A new key's secret has to survive one redirect (POST → 303 → GET), so that a reload or the
 * Back button can never show it again. It waits in `one_time_keys`, never in the clear: sealed
 * with AES-256-GCM under a key derived from SESSION_SECRET (and bound to its row id); the session
 * holds only the row id. The page that shows it claims the row with a DELETE, and only the
 * request whose DELETE removed the row shows the secret: concurrent requests of one session
 * read the same session, so the session alone could not make "once" atomic. An unread one
 * expires quickly.
 */
export interface OneTimeKey {
	keyId: string;
	label: string;
	scopes: Scope[];
	masked: string;
	action: 'created' | 'rotated';
	secret: string;
	/** After a rotation: the webhook endpoints that passed to the new key. */
	movedEndpoints?: Array<{ id: string; url: string }>;
}

const MAX_AGE_MS = 10 * 60 * 1000;

export class OneTimeKeyBox {
	private readonly key: Buffer;

	constructor(sessionSecret: string) {
		this.key = Buffer.from(hkdfSync('sha256', sessionSecret, Buffer.alloc(0), 'lms settings: one-time key display', 32));
	}

	async put(req: Request, shown: OneTimeKey): Promise<void> {
		// Unread ones from anybody are worthless after MAX_AGE_MS: clear them on the way.
		await OneTimeKeyRow.destroy({ where: { createdAt: { [Op.lt]: new Date(Date.now() - MAX_AGE_MS) } } });
		const row = OneTimeKeyRow.build({ sealed: '' });
		row.sealed = this.seal(row.id, JSON.stringify(shown));
		await row.save();
		req.session.oneTimeKey = row.id;
	}

	/** The key to show, at most once across every request of the session; gone whatever happens. */
	async take(req: Request): Promise<OneTimeKey | undefined> {
		const id = req.session.oneTimeKey;
		if (!id) return undefined;
		delete req.session.oneTimeKey;
		const row = await OneTimeKeyRow.findByPk(id);
		if (!row) return undefined;
		const claimed = await OneTimeKeyRow.destroy({ where: { id } });
		if (claimed !== 1 || Date.now() - row.createdAt.getTime() > MAX_AGE_MS) return undefined;
		try {
			return JSON.parse(this.open(id, row.sealed)) as OneTimeKey;
		} catch {
			// Sealed under another SESSION_SECRET (a restart in development): nothing to show.
			return undefined;
		}
	}

	private seal(id: string, text: string): string {
		const iv = randomBytes(12);
		const cipher = createCipheriv('aes-256-gcm', this.key, iv);
		cipher.setAAD(Buffer.from(id));
		const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
		return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
	}

	private open(id: string, sealed: string): string {
		const raw = Buffer.from(sealed, 'base64');
		const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
		decipher.setAAD(Buffer.from(id));
		decipher.setAuthTag(raw.subarray(12, 28));
		return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
	}
}
