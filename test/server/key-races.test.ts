/**
 * SPEC §14: key rotation and revocation are serialised on every database. Of concurrent
 * rotations of one key exactly one succeeds; of a rotate racing a revoke exactly one wins; the
 * others answer "not active". Raced through the key service (several transactions at once in
 * the server's process) and through separate `lms-server` processes, then checked where it
 * matters: exactly one key of the family still opens the API.
 */
import { ApiKey } from '../../server/src/api-keys/model';
import { KeyRuleError } from '../../server/src/api-keys/errors';
import { rotateKey, revokeKey } from '../../server/src/api-keys/lifecycle';
import { runCli } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;

beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
}, 60_000);

afterAll(async () => {
	await server?.stop();
});

const actor = { kind: 'cli' } as const;
const RACERS = 8;

async function status(key: string): Promise<number> {
	const res = await fetch(`${server.baseUrl}/api/v1/users?per_page=1`, { headers: { Authorization: `Bearer ${key}` } });
	await res.arrayBuffer();
	return res.status;
}

/** How many of these secrets the API accepts right now. */
async function working(keys: string[]): Promise<number> {
	const statuses = await Promise.all(keys.map(status));
	return statuses.filter((s) => s === 200).length;
}

async function activeKeysLabelled(label: string): Promise<number> {
	return ApiKey.count({ where: { label, status: 'active' } });
}

function settle<T>(promises: Array<Promise<T>>) {
	return Promise.allSettled(promises).then((results) => ({
		won: results.filter((r): r is PromiseFulfilledResult<Awaited<T>> => r.status === 'fulfilled').map((r) => r.value),
		lost: results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown),
	}));
}

describe('through the key service', () => {
	test(`${RACERS} concurrent rotations of one key: one succeeds, the others answer not active, one key works`, async () => {
		const original = await server.createKey('acme', ['read:users'], 'race rotate');
		const { won, lost } = await settle(Array.from({ length: RACERS }, () => rotateKey({ keyId: original.id, actor })));

		expect(won).toHaveLength(1);
		expect(lost).toHaveLength(RACERS - 1);
		for (const err of lost) {
			expect(err).toBeInstanceOf(KeyRuleError);
			expect((err as KeyRuleError).code).toBe('key_not_active');
			expect((err as KeyRuleError).message).toBe('The key race rotate is already rotated.');
		}
		expect(await activeKeysLabelled('race rotate')).toBe(1);
		expect(await working([original.key, won[0].secret])).toBe(1);
		expect(await status(won[0].secret)).toBe(200);
		const old = await ApiKey.findByPk(original.id);
		expect(old).toMatchObject({ status: 'rotated', replacedBy: won[0].apiKey.id, revokedAt: null });
	});

	test('a rotation racing a revocation: exactly one wins and the key ends as that one left it', async () => {
		for (let round = 0; round < 4; round++) {
			const label = `race mixed ${round}`;
			const original = await server.createKey('acme', ['read:users'], label);
			const [rotated, revoked] = await Promise.allSettled([
				rotateKey({ keyId: original.id, actor }),
				revokeKey({ keyId: original.id, actor }),
			]);
			const winners = [rotated, revoked].filter((r) => r.status === 'fulfilled');
			expect(winners).toHaveLength(1);
			const loser = [rotated, revoked].find((r) => r.status === 'rejected') as PromiseRejectedResult;
			expect((loser.reason as KeyRuleError).code).toBe('key_not_active');

			const old = await ApiKey.findByPk(original.id);
			expect(await status(original.key)).toBe(401);
			if (rotated.status === 'fulfilled') {
				// Rotated, never also revoked; its replacement is the only working key.
				expect(old).toMatchObject({ status: 'rotated', revokedAt: null });
				expect(await status(rotated.value.secret)).toBe(200);
				expect(await activeKeysLabelled(label)).toBe(1);
			} else {
				// Revoked, and no replacement came out of the losing rotation.
				expect(old).toMatchObject({ status: 'revoked', replacedBy: null });
				expect(await activeKeysLabelled(label)).toBe(0);
			}
		}
	});
});

describe('through concurrent lms-server processes', () => {
	const cli = (...args: string[]) => runCli(args, { env: { DATABASE_URL: server.databaseUrl } });

	test('concurrent `keys rotate` of one key: one process prints a key, the others fail with "not active"', async () => {
		const original = await server.createKey('acme', ['read:users'], 'cli race rotate');
		const results = await Promise.all(Array.from({ length: 4 }, () => cli('keys', 'rotate', original.id, '--json')));

		const winners = results.filter((r) => r.code === 0);
		expect(winners).toHaveLength(1);
		for (const loser of results.filter((r) => r.code !== 0)) {
			expect(loser.code).toBe(1);
			expect(loser.stderr).toBe('lms-server: The key cli race rotate is already rotated.\n');
			expect(loser.stdout).toBe('');
		}
		const issued = JSON.parse(winners[0].stdout) as { key: string };
		expect(await activeKeysLabelled('cli race rotate')).toBe(1);
		expect(await status(issued.key)).toBe(200);
		expect(await status(original.key)).toBe(401);
	});

	test('`keys rotate` racing `keys revoke`: exactly one process succeeds', async () => {
		const original = await server.createKey('acme', ['read:users'], 'cli race mixed');
		const [rotated, revoked] = await Promise.all([
			cli('keys', 'rotate', original.id, '--json'),
			cli('keys', 'revoke', original.id, '--json'),
		]);
		expect([rotated.code, revoked.code].sort()).toEqual([0, 1]);
		const loser = rotated.code === 0 ? revoked : rotated;
		expect(loser.stderr).toMatch(/^lms-server: The key cli race mixed is already (rotated|revoked)\.\n$/);

		expect(await status(original.key)).toBe(401);
		if (rotated.code === 0) {
			expect(await status((JSON.parse(rotated.stdout) as { key: string }).key)).toBe(200);
			expect(await activeKeysLabelled('cli race mixed')).toBe(1);
		} else {
			expect(await activeKeysLabelled('cli race mixed')).toBe(0);
		}
	});
});
