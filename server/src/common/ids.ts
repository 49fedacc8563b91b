import { randomBytes } from 'node:crypto';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes are drawn from the CSPRNG 4 KiB at a time: one call per byte-sized need costs a
 * call into OpenSSL each, and every request takes 20 for its id (crypto.randomInt keeps such a
 * cache too). A byte is used once.
 */
const pool = { bytes: Buffer.alloc(0), next: 0 };

function randomByte(): number {
	if (pool.next === pool.bytes.length) {
		pool.bytes = randomBytes(4096);
		pool.next = 0;
	}
	return pool.bytes[pool.next++];
}

/**
 * `length` characters drawn uniformly from base62 with the CSPRNG. Bytes of 248 and above are
 * dropped (248 = 4 × 62), so every character is equally likely: no modulo bias.
 */
export function randomBase62(length: number): string {
	let out = '';
	while (out.length < length) {
		const byte = randomByte();
		if (byte < 248) out += BASE62[byte % 62];
	}
	return out;
}

export type IdPrefix = 'org' | 'usr' | 'crs' | 'enr' | 'cert' | 'key' | 'evt' | 'whe' | 'whd' | 'sgn' | 'otk';

/** Opaque public ids: a type prefix and 16 URL-safe random characters (~95 bits). */
export function newId(prefix: IdPrefix): string {
	return `${prefix}_${randomBase62(16)}`;
}
