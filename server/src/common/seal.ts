import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/**
 * The one way the server keeps a secret it must read back (a new API key waiting for the one page
 * that shows it, webhook signing secrets): AES-256-GCM under a key derived with HKDF from a server
 * secret and a label naming the use, authenticated together with the id of the row it belongs to
 * (a sealed value copied onto another row does not open). Secrets the server only needs to
 * recognise (API keys) are hashed instead (api-keys/key-format.ts).
 *
 * Sealed text is `<key id>.<base64 of iv (12) | tag (16) | ciphertext>`. The key id (8 hex
 * characters of an HMAC of the derived key, not the key) says which server secret sealed it, so
 * that after a rotation the old secret can still open what it sealed, and what is not yet under
 * the current one is found without trying keys.
 */
export class Sealer {
	private readonly keys: Array<{ id: string; key: Buffer }>;

	/**
	 * @param label what the key is for; different labels give unrelated keys from one secret.
	 * @param secrets the current server secret first, then earlier ones that still open.
	 */
	constructor(label: string, secrets: readonly string[]) {
		if (secrets.length === 0) throw new Error('a Sealer needs at least one secret');
		this.keys = secrets.map((secret) => {
			const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), label, 32));
			return { id: createHmac('sha256', key).update('key id').digest('hex').slice(0, 8), key };
		});
	}

	/** Whether this text was sealed under the current secret. */
	isCurrent(sealed: string): boolean {
		return sealed.startsWith(`${this.keys[0].id}.`);
	}

	/** Whether any of this sealer's secrets can open it (by its key id). */
	canOpen(sealed: string): boolean {
		return this.keys.some((k) => sealed.startsWith(`${k.id}.`));
	}

	seal(rowId: string, text: string): string {
		const { id, key } = this.keys[0];
		const iv = randomBytes(12);
		const cipher = createCipheriv('aes-256-gcm', key, iv);
		cipher.setAAD(Buffer.from(rowId));
		const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
		return `${id}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
	}

	/** The text; throws if no secret of this sealer sealed it, or it was altered or moved to another row. */
	open(rowId: string, sealed: string): string {
		const dot = sealed.indexOf('.');
		const entry = this.keys.find((k) => k.id === sealed.slice(0, dot));
		if (dot < 0 || !entry) throw new Error('sealed under a secret this server does not have');
		const raw = Buffer.from(sealed.slice(dot + 1), 'base64');
		const decipher = createDecipheriv('aes-256-gcm', entry.key, raw.subarray(0, 12));
		decipher.setAAD(Buffer.from(rowId));
		decipher.setAuthTag(raw.subarray(12, 28));
		return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
	}
}
