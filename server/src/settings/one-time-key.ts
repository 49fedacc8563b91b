import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Request } from 'express';

import type { Scope } from '../api-keys/model';

/**
 * A new key's secret has to survive one redirect (POST → 303 → GET), so that a reload or the
 * Back button can never show it again, and the only thing that survives a redirect is the
 * session. The session lives in the database, where a secret must never be stored in the
 * clear: it is sealed with AES-256-GCM under a key derived from SESSION_SECRET, read once by
 * the page that shows it, and deleted in the same request. An unread one expires quickly.
 */
export interface SealedKey {
	keyId: string;
	label: string;
	scopes: Scope[];
	masked: string;
	action: 'created' | 'rotated';
	/** base64 of iv (12) | tag (16) | ciphertext */
	sealed: string;
	sealedAt: number;
}

export type OneTimeKey = Omit<SealedKey, 'sealed' | 'sealedAt'> & { secret: string };

const MAX_AGE_MS = 10 * 60 * 1000;

export class OneTimeKeyBox {
	private readonly key: Buffer;

	constructor(sessionSecret: string) {
		this.key = Buffer.from(hkdfSync('sha256', sessionSecret, Buffer.alloc(0), 'lms settings: one-time key display', 32));
	}

	put(req: Request, { secret, ...shown }: OneTimeKey): void {
		const iv = randomBytes(12);
		const cipher = createCipheriv('aes-256-gcm', this.key, iv);
		const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
		const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
		req.session.oneTimeKey = { ...shown, sealed, sealedAt: Date.now() };
	}

	/** The key to show, at most once; removes it from the session whatever happens. */
	take(req: Request): OneTimeKey | undefined {
		const stored = req.session.oneTimeKey;
		if (!stored) return undefined;
		delete req.session.oneTimeKey;
		if (Date.now() - stored.sealedAt > MAX_AGE_MS) return undefined;
		try {
			const raw = Buffer.from(stored.sealed, 'base64');
			const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
			decipher.setAuthTag(raw.subarray(12, 28));
			const secret = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
			const { sealed: _sealed, sealedAt: _sealedAt, ...shown } = stored;
			return { ...shown, secret };
		} catch {
			// Sealed under another SESSION_SECRET (a restart in development): nothing to show.
			return undefined;
		}
	}
}
