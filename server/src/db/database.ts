import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Client } from 'pg';
import { QueryTypes, Sequelize, Transaction, type Options } from 'sequelize';

import { PoolWatch } from './pool-watch';
import { PreparedReads } from './prepared';
import { postgresDriver, statementName } from './pg-driver';
import { closeIdleHandles, sqliteDriver } from './sqlite-driver';

export type Dialect = 'sqlite' | 'postgres';

export function dialectOf(databaseUrl: string): Dialect {
	return databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'postgres';
}

/** `sqlite:./data/lms.sqlite`, `sqlite:/abs/path.sqlite` or `sqlite::memory:` → a file path. */
export function sqliteFile(databaseUrl: string): string {
	const rest = databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
	return rest === ':memory:' ? rest : resolve(rest);
}

/** Why the SQLite file a DATABASE_URL names cannot be opened: the operator's to fix, said in one line. */
export class DatabaseFileError extends Error {}

const SQLITE_HEADER = 'SQLite format 3\0';

/**
 * What is at the path a `sqlite:` URL names, checked before SQLite opens (and so creates) it. A
 * typo, a wrong working directory or `sqlite:` with no path must not create and migrate a stray
 * database, and must never touch what is not a database: a folder, or a file of another kind.
 */
function checkSqlitePath(storage: string, create: boolean): void {
	const stats = existsSync(storage) ? statSync(storage) : undefined;
	if (stats?.isDirectory()) throw new DatabaseFileError(`${storage} is a folder, not a database file: set DATABASE_URL to sqlite: followed by a file path.`);
	if (stats === undefined && !create) {
		throw new DatabaseFileError(
			`no database at ${storage}: check DATABASE_URL and the working directory, or create it with \`lms-server migrate\` (or \`seed --demo\`).`,
		);
	}
	if (stats !== undefined && stats.size > 0 && !startsWithSqliteHeader(storage)) {
		throw new DatabaseFileError(`${storage} is not an SQLite database: check DATABASE_URL.`);
	}
}

function startsWithSqliteHeader(path: string): boolean {
	const header = Buffer.alloc(SQLITE_HEADER.length);
	const fd = openSync(path, 'r');
	try {
		return readSync(fd, header, 0, header.length, 0) === header.length && header.toString('latin1') === SQLITE_HEADER;
	} finally {
		closeSync(fd);
	}
}

/**
 * The SQLite file holds password hashes and sessions: it and its -wal/-shm companions are for the
 * server's user only (0600), including files made by an older version or another umask, which are
 * tightened at every start once the file has opened as SQLite. SQLite gives -wal/-shm the mode of
 * the database file, so a new file is created 0600 before SQLite opens it. A missing folder is
 * created 0700; an existing folder is never changed: DATABASE_URL may name one the operator shares
 * (the repository, their home), and the file's own mode protects it.
 */
function createSqliteFile(storage: string): void {
	const folder = dirname(storage);
	if (!existsSync(folder)) mkdirSync(folder, { recursive: true, mode: 0o700 });
	if (!existsSync(storage)) closeSync(openSync(storage, 'a', 0o600));
}

function protectSqliteFiles(storage: string): void {
	for (const file of [storage, `${storage}-wal`, `${storage}-shm`, `${storage}-journal`]) tighten(file, 0o600);
}

/** Takes group and other permissions away from a file we own, if it has any. */
function tighten(path: string, mode: number): void {
	if (!existsSync(path)) return;
	const stats = statSync(path);
	if (!stats.isFile()) return;
	if (process.getuid !== undefined && stats.uid !== process.getuid()) return;
	if ((stats.mode & 0o077) !== 0) chmodSync(path, mode);
}

/**
 * The database: Sequelize (models, migrations, the session store) and the SQL the components
 * write themselves in their queries.ts files, all on Sequelize's one connection pool. Raw SQL
 * uses PostgreSQL's numbered parameters (`$1`, `$2`…), which Sequelize binds on both dialects.
 *
 * Timestamps cross raw SQL as ISO 8601 text: a statement reads a timestamp column through
 * isoText() and binds one through storedTime(), so JavaScript never meets a dialect's own form.
 *
 * Two doors, and the caller names the one it takes: read() for a SELECT outside a transaction,
 * kept prepared on the same pool (prepared.ts; the per-request reads go this way), rows()/run()
 * for everything else, through Sequelize's own query (writes, RETURNING, anything in a transaction).
 */
export class Database {
	readonly dialect: Dialect;
	private readonly kept: PreparedReads;

	/** Kept only to open a session outside the pool (sessionOutsidePool); never logged. */
	readonly #url: string;

	/** The pool's connections and waiters, for /metrics. */
	readonly pool: PoolWatch;

	constructor(readonly sequelize: Sequelize, url: string, pool: PoolWatch) {
		this.#url = url;
		this.pool = pool;
		this.dialect = sequelize.getDialect() === 'postgres' ? 'postgres' : 'sqlite';
		this.kept = new PreparedReads(sequelize, this.dialect);
	}

	/**
	 * The rows of a read outside any transaction (a SELECT, or WITH … SELECT; never a write), run
	 * as a statement prepared once per connection (prepared.ts): what every request reads goes
	 * this way. It sees every transaction committed before it starts.
	 */
	read<R extends object>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
		return this.kept.rows<R>(sql, params);
	}

	/**
	 * The rows a statement returns (SELECT, or RETURNING), inside `transaction` when given, through
	 * Sequelize's query; on PostgreSQL prepared once per connection (pg-driver.ts).
	 */
	rows<R extends object>(sql: string, params: readonly unknown[] = [], transaction?: Transaction): Promise<R[]> {
		this.named(sql, params);
		return this.sequelize.query<R>(sql, { bind: params as unknown[], type: QueryTypes.SELECT, transaction });
	}

	/** Runs a statement whose rows are not wanted (INSERT, UPDATE, DELETE), as `rows` does. */
	async run(sql: string, params: readonly unknown[] = [], transaction?: Transaction): Promise<void> {
		this.named(sql, params);
		await this.sequelize.query(sql, { bind: params as unknown[], transaction });
	}

	/** PostgreSQL: a statement with parameters is run under its name (Sequelize hands the driver no parameters for one without). */
	private named(sql: string, params: readonly unknown[]): void {
		if (this.dialect === 'postgres' && params.length > 0) statementName(sql);
	}

	/**
	 * A timestamp column as ISO 8601 text in UTC with milliseconds (`2026-05-01T09:30:00.000Z`),
	 * or NULL. SQLite keeps a DATE as text with an offset and PostgreSQL as timestamptz; both are
	 * turned into the API's form by the database's own date functions.
	 */
	isoText(column: string): string {
		return this.dialect === 'sqlite'
			? `strftime('%Y-%m-%dT%H:%M:%fZ', ${column})`
			: `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
	}

	/**
	 * An ISO 8601 parameter (`$n`) as a timestamp column holds it, to store or to compare with.
	 * PostgreSQL reads ISO text as timestamptz. SQLite compares DATE columns as text, in the form
	 * Sequelize's DATE type writes there (UTC, `2026-05-01 09:30:00.000 +00:00`), which sorts as
	 * time does: SQLite's strftime turns the parameter into that form, so raw SQL and model
	 * writes store and compare alike.
	 */
	storedTime(placeholder: string): string {
		return this.dialect === 'sqlite' ? `strftime('%Y-%m-%d %H:%M:%f +00:00', ${placeholder})` : placeholder;
	}

	/**
	 * PostgreSQL: a session of its own, outside the pool, with the pg driver's own client (which
	 * reads DATABASE_URL as Sequelize's pool does): for a session lock held while the pool works,
	 * which a pool of one connection would otherwise deadlock against. The caller ends it.
	 */
	async sessionOutsidePool(): Promise<Client> {
		if (this.dialect !== 'postgres') throw new Error('A session outside the pool is a PostgreSQL feature.');
		const client = new Client({ connectionString: this.#url });
		await client.connect();
		return client;
	}

	async close(): Promise<void> {
		await this.kept.close();
		await this.sequelize.close();
		if (this.dialect === 'sqlite') await closeIdleHandles(sqliteFile(this.#url));
	}
}

export interface DatabaseOptions {
	databaseUrl: string;
	poolMax?: number;
	/** SQLite: create the file when it is missing (start, migrate, seed); otherwise refuse. */
	create?: boolean;
}

const ACQUIRE_TIMEOUT_MS = 30_000;

/**
 * One Sequelize instance (one pool) per database. Dialect differences live here and nowhere else:
 * SQLite gets WAL, a busy timeout and IMMEDIATE write transactions (a DEFERRED transaction
 * that reads then writes fails at once with SQLITE_BUSY under concurrency). Write transactions
 * are opened by writeTransaction (write-transaction.ts), which also makes SQLite's take turns.
 */
export async function openDatabase({ databaseUrl, poolMax = 10, create = true }: DatabaseOptions): Promise<Database> {
	const common: Options = {
		logging: false,
		define: { underscored: true },
	};
	let sequelize: Sequelize;
	// Watching from before the first connection, which the pool keeps (db/pool-watch.ts).
	let pool: PoolWatch;
	if (dialectOf(databaseUrl) === 'sqlite') {
		const storage = sqliteFile(databaseUrl);
		if (storage !== ':memory:') {
			checkSqlitePath(storage, create);
			createSqliteFile(storage);
		}
		sequelize = new Sequelize({
			...common,
			dialect: 'sqlite',
			storage,
			// SQLite only: PostgreSQL has row locks and no BEGIN IMMEDIATE (Sequelize ignores it there).
			transactionType: Transaction.TYPES.IMMEDIATE,
			dialectModule: sqliteDriver,
			retry: { max: 10, match: [/SQLITE_BUSY/] },
		});
		pool = new PoolWatch(sequelize, 1, ACQUIRE_TIMEOUT_MS);
		await sequelize.query('PRAGMA journal_mode = WAL');
		await sequelize.query('PRAGMA synchronous = NORMAL');
		// Only now is it known to be an SQLite database: its modes are ours to tighten.
		if (storage !== ':memory:') protectSqliteFiles(storage);
	} else {
		sequelize = new Sequelize(databaseUrl, {
			...common,
			dialect: 'postgres',
			dialectModule: postgresDriver,
			pool: { max: poolMax, min: 0, idle: 10_000, acquire: ACQUIRE_TIMEOUT_MS },
		});
		pool = new PoolWatch(sequelize, poolMax, ACQUIRE_TIMEOUT_MS);
		await sequelize.authenticate();
	}
	return new Database(sequelize, databaseUrl, pool);
}
