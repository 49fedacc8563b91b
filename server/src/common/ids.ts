import { randomInt } from 'node:crypto';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters drawn uniformly from base62 with the CSPRNG (no modulo bias). */
export function randomBase62(length: number): string {
	let out = '';
	for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
	return out;
}

export type IdPrefix = 'org' | 'usr' | 'crs' | 'enr' | 'cert' | 'key' | 'evt' | 'whe' | 'whd' | 'sgn' | 'otk';

/** Opaque public ids: a type prefix and 16 URL-safe random characters (~95 bits). */
export function newId(prefix: IdPrefix): string {
	return `${prefix}_${randomBase62(16)}`;
}
