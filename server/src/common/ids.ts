import { randomBytes } from 'node:crypto';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * `length` characters drawn uniformly from base62 with the CSPRNG. Bytes of 248 and above are
 * dropped (248 = 4 × 62), so every character is equally likely: no modulo bias.
 */
export function randomBase62(length: number): string {
	let out = '';
	while (out.length < length) {
		for (const byte of randomBytes(length - out.length + 4)) if (byte < 248 && out.length < length) out += BASE62[byte % 62];
	}
	return out;
}

export type IdPrefix = 'org' | 'usr' | 'crs' | 'enr' | 'cert' | 'key' | 'evt' | 'whe' | 'whd' | 'sgn' | 'otk' | 'grp' | 'asg';

/** Opaque public ids: a type prefix and 16 URL-safe random characters (~95 bits). */
export function newId(prefix: IdPrefix): string {
	return `${prefix}_${randomBase62(16)}`;
}
