import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Sequelize, Transaction, type Options, type TransactionOptions } from 'sequelize';

import { attachReads, postgresReads, sqliteReads } from './reads';
import { sqliteDriver } from './sqlite-driver';

export type Dialect = 'sqlite' | 'postgres';

export function dialectOf(databaseUrl: string): Dialect {
	return databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'postgres';
}

/** `sqlite:./data/lms.sqlite`, `sqlite:/abs/path.sqlite` or `sqlite::memory:` → a file path. */
export function sqliteFile(databaseUrl: string): string {
	const rest = databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
	return rest === ':memory:' ? rest : resolve(rest);
}

/**
 * The SQLite file holds password hashes and sessions: it, its -wal/-shm companions and its
 * folder are for the server's user only (0600 / 0700), including files made by an older
 * version or another umask, which are tightened at every start. SQLite gives -wal/-shm the
 * mode of the database file, so the file is created 0600 before SQLite opens it. A folder we
 * do not own, or a shared sticky one such as /tmp, is left as it is: changing it would break
 * others; the file's own mode still protects it.
 */
function protectSqliteFiles(storage: string): void {
	const folder = dirname(storage);
	if (!existsSync(folder)) mkdirSync(folder, { recursive: true, mode: 0o700 });
	if ((statSync(folder).mode & 0o1000) === 0) tighten(folder, 0o700);
	if (!existsSync(storage)) closeSync(openSync(storage, 'a', 0o600));
	for (const file of [storage, `${storage}-wal`, `${storage}-shm`, `${storage}-journal`]) tighten(file, 0o600);
}

/** Takes group and other permissions away from a path we own, if it has any. */
function tighten(path: string, mode: number): void {
	if (!existsSync(path)) return;
	const stats = statSync(path);
	if (process.getuid !== undefined && stats.uid !== process.getuid()) return;
	if ((stats.mode & 0o077) !== 0) chmodSync(path, mode);
}

type ManagedTransaction = (options: TransactionOptions, run: (t: Transaction) => Promise<unknown>) => Promise<unknown>;

/**
 * SQLite only: one write transaction at a time in this process. The sqlite3 driver runs each
 * statement on one of libuv's four pool threads, and a BEGIN IMMEDIATE that waits for the write
 * lock holds its thread for the whole busy timeout; four of them waiting took every thread, the
 * transaction holding the lock could not run its COMMIT, and all of them stalled for 5 s and then
 * failed. Waiting here, in a promise queue, costs no thread. (Other processes, such as a CLI
 * command, still meet the busy timeout, which is what it is for.)
 */
function serialiseTransactions(sequelize: Sequelize): void {
	const original = sequelize.transaction.bind(sequelize) as (...args: unknown[]) => Promise<unknown>;
	let tail: Promise<unknown> = Promise.resolve();
	sequelize.transaction = ((first: unknown, second: unknown) => {
		const run = typeof first === 'function' ? first : second;
		// An unmanaged transaction (no callback) is the caller's to commit: left as it is.
		if (typeof run !== 'function') return original(first);
		const options = typeof first === 'function' ? {} : first;
		const result = tail.then(() => (original as ManagedTransaction)(options as TransactionOptions, run as never));
		tail = result.catch(() => undefined);
		return result;
	}) as Sequelize['transaction'];
}

export interface DatabaseOptions {
	databaseUrl: string;
	poolMax?: number;
}

/**
 * One Sequelize instance per process. Dialect differences live here and nowhere else:
 * SQLite gets WAL, a busy timeout and IMMEDIATE write transactions (a DEFERRED transaction
 * that reads then writes fails at once with SQLITE_BUSY under concurrency).
 */
export async function openDatabase({ databaseUrl, poolMax = 10 }: DatabaseOptions): Promise<Sequelize> {
	const common: Options = {
		logging: false,
		define: { underscored: true },
	};
	let sequelize: Sequelize;
	if (dialectOf(databaseUrl) === 'sqlite') {
		const storage = sqliteFile(databaseUrl);
		if (storage !== ':memory:') protectSqliteFiles(storage);
		sequelize = new Sequelize({
			...common,
			dialect: 'sqlite',
			storage,
			// SQLite only: PostgreSQL has row locks and no BEGIN IMMEDIATE (Sequelize ignores it there).
			transactionType: Transaction.TYPES.IMMEDIATE,
			dialectModule: sqliteDriver,
			retry: { max: 10, match: [/SQLITE_BUSY/] },
		});
		serialiseTransactions(sequelize);
		attachReads(sequelize, () => sqliteReads(storage));
		await sequelize.query('PRAGMA journal_mode = WAL');
		await sequelize.query('PRAGMA synchronous = NORMAL');
	} else {
		sequelize = new Sequelize(databaseUrl, {
			...common,
			dialect: 'postgres',
			pool: { max: poolMax, min: 0, idle: 10_000, acquire: 30_000 },
		});
		await sequelize.authenticate();
		attachReads(sequelize, () => postgresReads(databaseUrl, poolMax));
	}
	return sequelize;
}
