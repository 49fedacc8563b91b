import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client } from 'pg';
import { createClient } from 'redis';

/**
 * Which database and limit store the suites run against. `npm test` runs SQLite and the
 * in-memory store; `npm run test:postgres` sets TEST_DATABASE=postgres and TEST_REDIS=1, and
 * every test server, CLI database and spawned instance then gets a PostgreSQL database of its
 * own (created here, dropped when the test is done) and a Redis key prefix of its own, so
 * suites stay isolated and can run in parallel Jest workers.
 *
 * A service the switch asks for but cannot reach is an error, never a silent skip: the tests
 * that need it fail with one line that says what is missing.
 */

export type TestDialect = 'sqlite' | 'postgres';

export function testDialect(): TestDialect {
	const value = (process.env.TEST_DATABASE ?? 'sqlite').toLowerCase();
	if (value === 'postgres') return 'postgres';
	if (value === 'sqlite' || value === '') return 'sqlite';
	throw new Error(`TEST_DATABASE=${value}: expected sqlite or postgres`);
}

/**
 * A suite or test that needs PostgreSQL and Redis (several instances, races SQLite's single
 * writer would hide): run under `npm run test:postgres`, and reported as skipped, with the
 * reason in its name, under `npm test` rather than silently left out.
 */
export const onPostgres = <T extends jest.Describe | jest.It>(run: T): T =>
	testDialect() === 'postgres' ? run : (((name: string, fn: () => void, timeout?: number) => run.skip(`${name} [needs PostgreSQL and Redis: npm run test:postgres]`, fn as never, timeout)) as unknown as T);

const useTestRedis = (): boolean => ['1', 'true', 'yes'].includes((process.env.TEST_REDIS ?? '').toLowerCase());

/** The server's base URL: a trailing slash, then the database name is appended. */
function postgresBaseUrl(): string {
	const base = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/';
	return base.endsWith('/') ? base : `${base}/`;
}

export const redisTestUrl = (): string => process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The base URL without a password, for messages. */
function shown(url: string): string {
	return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

export interface TestDatabase {
	dialect: TestDialect;
	databaseUrl: string;
	/** SQLite only: the database file. */
	file?: string;
	/**
	 * Everything the database holds, as bytes to search: SQLite's files (database, WAL, shm),
	 * or every row of every PostgreSQL table as text.
	 */
	storedBytes(): Promise<Buffer>;
	remove(): Promise<void>;
}

/** Databases left behind by a killed run are dropped by a later one once they are this old. */
const STALE_AFTER_S = 6 * 3600;
const PREFIX = 'lms_test_';

async function adminClient(): Promise<Client> {
	const url = `${postgresBaseUrl()}test`;
	const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
	try {
		await client.connect();
	} catch (err) {
		await client.end().catch(() => undefined);
		throw new Error(
			`TEST_DATABASE=postgres but PostgreSQL is unreachable at ${shown(url)} (${(err as Error).message}): ` +
				'start it (.ci/run does) or run the SQLite suites with `npm test`.',
		);
	}
	return client;
}

async function dropStale(client: Client): Promise<void> {
	const now = Math.floor(Date.now() / 1000);
	const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${PREFIX}%`]);
	for (const { datname } of rows) {
		const created = Number(/^lms_test_(\d+)_/.exec(datname)?.[1]);
		if (Number.isFinite(created) && now - created > STALE_AFTER_S) {
			await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => undefined);
		}
	}
}

export interface DatabaseOptions {
	/**
	 * PostgreSQL only: collate text like most production servers do, by language (ICU en-US,
	 * where `a` < `B`), instead of this machine's default. Ignored on SQLite.
	 */
	languageCollation?: boolean;
}

/** A fresh, empty PostgreSQL database; `remove()` drops it (and any connection still open to it). */
export async function createPostgresDatabase(options: DatabaseOptions = {}): Promise<TestDatabase> {
	const name = `${PREFIX}${Math.floor(Date.now() / 1000)}_${randomBytes(6).toString('hex')}`;
	const create = options.languageCollation
		? `CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C' LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`
		: `CREATE DATABASE "${name}"`;
	const client = await adminClient();
	try {
		await dropStale(client);
		// CREATE DATABASE copies template1 and refuses while another session copies it too.
		for (let attempt = 1; ; attempt++) {
			try {
				await client.query(create);
				break;
			} catch (err) {
				if (attempt >= 20 || !/being accessed by other users/.test((err as Error).message)) throw err;
				await new Promise((r) => setTimeout(r, 100 * attempt));
			}
		}
	} finally {
		await client.end();
	}
	const databaseUrl = `${postgresBaseUrl()}${name}`;
	return {
		dialect: 'postgres',
		databaseUrl,
		async storedBytes() {
			const db = new Client({ connectionString: databaseUrl });
			await db.connect();
			try {
				const { rows: tables } = await db.query<{ tablename: string }>(
					"SELECT tablename FROM pg_tables WHERE schemaname = 'public'",
				);
				const parts: string[] = [];
				for (const { tablename } of tables) {
					const { rows } = await db.query<{ row: string }>(`SELECT t::text AS row FROM "${tablename}" t`);
					parts.push(...rows.map((r) => r.row));
				}
				return Buffer.from(parts.join('\n'));
			} finally {
				await db.end();
			}
		},
		async remove() {
			const admin = await adminClient();
			try {
				await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
			} finally {
				await admin.end();
			}
		},
	};
}

export async function createSqliteDatabase(): Promise<TestDatabase> {
	const dir = await mkdtemp(join(tmpdir(), 'lms-test-'));
	const file = join(dir, 'lms.sqlite');
	return {
		dialect: 'sqlite',
		databaseUrl: `sqlite:${file}`,
		file,
		async storedBytes() {
			const names = await readdir(dir);
			return Buffer.concat(await Promise.all(names.map((n) => readFile(join(dir, n)))));
		},
		remove: () => rm(dir, { recursive: true, force: true }),
	};
}

/** A fresh database of the dialect TEST_DATABASE names (SQLite by default). */
export function createTestDatabase(options: DatabaseOptions = {}): Promise<TestDatabase> {
	return testDialect() === 'postgres' ? createPostgresDatabase(options) : createSqliteDatabase();
}

/**
 * With TEST_REDIS=1: REDIS_URL plus a key prefix nobody else uses, after checking that Redis
 * answers. Otherwise nothing (the in-memory store).
 */
export async function testRedisEnv(): Promise<Record<string, string>> {
	if (!useTestRedis()) return {};
	const url = redisTestUrl();
	await assertRedisReachable(url);
	return { REDIS_URL: url, RATE_LIMIT_REDIS_PREFIX: `lms:test:${randomBytes(6).toString('hex')}:` };
}

export async function assertRedisReachable(url: string): Promise<void> {
	const client = createClient({ url, socket: { connectTimeout: 3000, reconnectStrategy: false } });
	client.on('error', () => undefined);
	try {
		await client.connect();
		await client.ping();
	} catch (err) {
		throw new Error(
			`TEST_REDIS=1 but Redis is unreachable at ${shown(url)} (${(err as Error).message || String(err)}): ` +
				'start redis-server (.ci/run does) or run without TEST_REDIS.',
		);
	} finally {
		if (client.isOpen) await client.close().catch(() => client.destroy());
	}
}
