import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt with N=2^15 (~50 ms here): slow for a guesser, fine for a sign-in. */
const PARAMS: ScryptOptions = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 64;

function derive(password: string, salt: Buffer, params: ScryptOptions): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, params, (err, key) => (err ? reject(err) : resolve(key)));
	});
}

/** `scrypt$N$r$p$salt$hash`, self-describing so the cost can be raised later. */
export async function hashPassword(password: string): Promise<string> {
	const salt = randomBytes(16);
	const key = await derive(password, salt, PARAMS);
	return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
	// Without a stored hash, still spend the same time, so a sign-in does not reveal which
	// emails have accounts.
	const parts = stored?.split('$') ?? [];
	if (parts.length !== 6 || parts[0] !== 'scrypt') {
		await derive(password, randomBytes(16), PARAMS);
		return false;
	}
	const [, n, r, p, salt, hash] = parts;
	const expected = Buffer.from(hash, 'base64');
	const actual = await derive(password, Buffer.from(salt, 'base64'), {
		...PARAMS,
		N: Number(n),
		r: Number(r),
		p: Number(p),
	});
	return actual.length === expected.length && timingSafeEqual(actual, expected);
}
