import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';

import { BASE62, randomBase62 } from '../common/ids';

/**
 * `lms_` + 32 random base62 characters (~190 bits) + a 6-character base62 CRC32 of those 32,
 * after GitHub's token format: the prefix makes leaked keys easy to scan for, and the
 * checksum lets the server reject a mistyped or made-up key without touching the database.
 */
const KEY_PREFIX = 'lms_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^lms_[0-9A-Za-z]{38}$/;

function base62Fixed(value: number, width: number): string {
	let out = '';
	let n = value;
	for (let i = 0; i < width; i++) {
		out = BASE62[n % 62] + out;
		n = Math.floor(n / 62);
	}
	return out;
}

function checksum(random: string): string {
	return base62Fixed(crc32(random), CHECKSUM_LENGTH);
}

export function generateKey(): string {
	const random = randomBase62(RANDOM_LENGTH);
	return KEY_PREFIX + random + checksum(random);
}

/** True when the key has the right shape and its checksum matches. No I/O. */
export function isWellFormedKey(key: string): boolean {
	if (!KEY_PATTERN.test(key)) return false;
	const random = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + RANDOM_LENGTH);
	return key.slice(KEY_PREFIX.length + RANDOM_LENGTH) === checksum(random);
}

/**
 * The only form in which a key is stored. The secret is high-entropy and machine-made, so a
 * fast unsalted digest is enough (a slow hash guards guessable passwords) and allows an
 * indexed lookup.
 */
export function hashKey(key: string): string {
	return createHash('sha256').update(key).digest('hex');
}

export function maskKey(key: string): string {
	return `${key.slice(0, KEY_PREFIX.length + 4)}…${key.slice(-4)}`;
}
