import sqlite3 from 'sqlite3';

/**
 * Handles closed while a Database (database.ts) is open, kept for the next ones on the same file.
 * Sequelize opens a handle per transaction and closes it after the COMMIT: every write then paid
 * for opening the file, the PRAGMAs below and SQLite parsing the whole schema again at its first
 * statement: 1.69 ms of CPU a transaction on this schema, against 0.51–0.65 ms on a kept handle
 * (issue 40, docs/benchmarks.md, Webhooks). Writes take turns (write-transaction.ts), so two kept
 * handles serve them all.
 */
const idle = new Map<string, Handle[]>();
const MAX_IDLE = 2;
/** Statements kept prepared per handle (Handle.kept): the worker's and an event's, with room for the requests'. */
const MAX_STATEMENTS = 100;
/** A parameter of SQLite's (`?`, `?1`, `$name`, `:name`, `@name`), or text that looks like one. */
const HAS_PARAMETERS = /[?$:@]/;
/** Statements that one step runs to their end: writes and transaction control (with RETURNING a write returns rows). */
const STEPS_ONCE = /^\s*(INSERT|UPDATE|DELETE|REPLACE|BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i;
const RETURNING = /\bRETURNING\b/i;
/** Sequelize's `PRAGMA FOREIGN_KEYS=ON` and any other setting of foreign_keys: the value. */
const FOREIGN_KEYS = /^\s*PRAGMA\s+foreign_keys\s*=\s*['"]?(\w+)['"]?\s*;?\s*$/i;
/** A statement that ends the transaction (not a savepoint's ROLLBACK TO): after it succeeds, none is open. */
const ENDS_TRANSACTION = /^\s*(COMMIT|END|ROLLBACK)(\s+TRANSACTION)?\s*;?\s*$/i;
/** Handles between their close and their place in `idle` (the ROLLBACK below), which closeIdle waits for. */
const settling = new Map<string, Set<Promise<void>>>();

/**
 * sqlite3 with a 5 s busy timeout and a 64 MiB page cache on every handle. Sequelize skips its
 * connect hooks for SQLite, so the driver itself is the only place this can go. The cache:
 * SQLite's default keeps 2 MiB of pages, so a read that probes an index at thousands of places
 * (a search matching 11,111 students among 1,000,000 enrollments, search/pages.ts) fetched nearly
 * every page from the operating system again, on every request: 270 against 100 ms at load 16
 * (bench/pickers.ts). Pages are cached as they are read, so a small database uses little of it.
 * synchronous = NORMAL on every handle, not only the first (database.ts sets it there): a
 * transaction's own handle was left at SQLite's FULL, which syncs the WAL at each COMMIT, ~30 ms
 * of a group join's 60–150 at load 16 (docs/benchmarks.md, Groups and assignments). In WAL mode
 * NORMAL loses no commit to a crash of the process (kill -9), only possibly the last ones to a
 * power cut, as the first handle always allowed.
 *
 * Closing a handle keeps it (`idle`) for the next one opened on the file, whoever closes it: the
 * handle's own state decides, nothing of Sequelize's. A handle whose last statement ended its
 * transaction (a COMMIT or ROLLBACK that succeeded) is kept as it is, at once, so the very next
 * transaction gets it, its page cache still good; any other first gets a ROLLBACK, which ends
 * whatever transaction may be left open on it (its error, when none is, is expected and
 * ignored), so a kept handle is as clean as a new one. Database.close() closes the kept handles
 * of its file for good once Sequelize has closed its own (closeIdleHandles).
 *
 * A handle keeps the statements run on it prepared, by SQL text (`all` and `run`, the two
 * methods Sequelize's query runs a statement with, sequelize/lib/dialects/sqlite/query.js):
 * sqlite3's own `all`/`run` prepare a statement, run it and finalize it every time, so each of a
 * transaction's statements (BEGIN, the worker's claim or outcomes, COMMIT, the ROLLBACK above)
 * was parsed and planned again, in two trips through the thread pool instead of one (issue 40).
 * Kept only what leaves no statement half-stepped: `all` steps to the end; `run` steps once, so
 * only a write without RETURNING or a transaction statement; and a statement with parameters
 * only when it is given some (sqlite3 would keep the last run's otherwise). A statement that
 * failed is finalized, not kept. At most MAX_STATEMENTS per handle, the least recently used go
 * first; all are finalized before the handle really closes. A kept statement's runs keep their
 * order (sqlite3 queues them on the statement); across statements the order is the callers', who
 * wait for each (Sequelize runs a transaction's statements one after another).
 */
class Handle extends sqlite3.Database {
	declare private file: string;
	/** Statements kept prepared, by SQL text, least recently used first. */
	declare private statements: Map<string, sqlite3.Statement>;
	/** Foreign keys known to be on: the handle's last setting of them set them on, outside a transaction. */
	declare private foreignKeysOn: boolean;
	/** Statements run on the handle (all, run, exec), counted as they are called. */
	declare private calls: number;
	/** The count when the last statement ending a transaction succeeded: equal to `calls`, nothing ran since and no transaction is open. */
	declare private endedAt: number;

	constructor(filename: string, mode?: number, callback?: (err: Error | null) => void) {
		const kept = idle.get(filename)?.pop();
		if (kept) {
			process.nextTick(() => callback?.(null));
			return kept;
		}
		super(filename, mode ?? sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE, (err) => {
			if (!err) {
				this.configure('busyTimeout', 5000);
				// Not counted as the handle's statements: a new handle is outside any transaction still.
				super.run('PRAGMA cache_size = -65536');
				super.run('PRAGMA synchronous = NORMAL');
			}
			callback?.(err);
		});
		this.file = filename;
		this.statements = new Map();
		this.calls = 0;
		this.endedAt = -1;
		this.foreignKeysOn = false;
	}

	override all(sql: string, ...args: unknown[]): this {
		if (this.sameForeignKeys(sql, args)) return this;
		this.counted(sql, args);
		return this.kept('all', sql, args) ? this : super.all(sql, ...args);
	}

	override run(sql: string, ...args: unknown[]): this {
		if (this.sameForeignKeys(sql, args)) return this;
		this.counted(sql, args);
		return this.kept('run', sql, args) ? this : super.run(sql, ...args);
	}

	override exec(sql: string, callback?: (this: sqlite3.Statement, err: Error | null) => void): this {
		this.calls += 1;
		// Several statements: whatever they set foreign_keys to, the next setting runs.
		if (/foreign_keys/i.test(sql)) this.foreignKeysOn = false;
		return super.exec(sql, callback);
	}

	/**
	 * Sequelize sets `PRAGMA FOREIGN_KEYS=ON` on every handle it opens, a kept one too: setting a
	 * pragma expires every statement prepared on the handle, so every kept statement was prepared
	 * again in each transaction (an event's INSERT: 0.43 ms instead of 0.06). Setting it on when
	 * the handle's last setting set it on is skipped. A setting is remembered only when the handle
	 * is known to be outside a transaction (new, or its last statement ended one), where SQLite
	 * applies it: inside one, SQLite ignores it. Setting it off always runs.
	 */
	private sameForeignKeys(sql: string, args: unknown[]): boolean {
		const setting = FOREIGN_KEYS.exec(sql);
		if (!setting) return false;
		const on = ['on', '1', 'true', 'yes'].includes(setting[1].toLowerCase());
		const callback = args.at(-1);
		if (on && this.foreignKeysOn) {
			// As sqlite3 calls back: later, and `all` with the rows (a setting has none).
			if (typeof callback === 'function') process.nextTick(() => (callback as (err: Error | null, rows: unknown[]) => void).call(this, null, []));
			return true;
		}
		const applies = this.calls === 0 || this.endedAt === this.calls;
		this.foreignKeysOn = on && applies;
		return false;
	}

	/** Counts a call; one that ends the transaction notes, when it succeeds, that the handle is clean if nothing ran since. */
	private counted(sql: string, args: unknown[]): void {
		this.calls += 1;
		const call = this.calls;
		const callback = args.at(-1);
		if (typeof callback !== 'function' || !ENDS_TRANSACTION.test(sql)) return;
		const ended = () => {
			if (this.calls === call) this.endedAt = call;
		};
		// sqlite3 calls back with the statement as `this`, which the callback may read.
		args[args.length - 1] = function (this: sqlite3.Statement, err: Error | null, ...rest: unknown[]) {
			if (!err) ended();
			return (callback as (this: sqlite3.Statement, ...a: unknown[]) => unknown).call(this, err, ...rest);
		};
	}

	/**
	 * Runs `sql` with a kept statement when it may be kept (above) and is called as Sequelize calls
	 * (sql, parameters, callback) or (sql, callback); false to leave it to sqlite3's own method.
	 */
	private kept(method: 'all' | 'run', sql: string, args: unknown[]): boolean {
		const callback = args.at(-1);
		if (typeof callback !== 'function' || args.length > 2) return false;
		const params = args.length === 2 ? args[0] : [];
		if (params === null || typeof params !== 'object') return false;
		if (Object.keys(params).length === 0 && HAS_PARAMETERS.test(sql)) return false;
		if (method === 'run' && (!STEPS_ONCE.test(sql) || RETURNING.test(sql))) return false;
		const done = callback as (this: sqlite3.Statement, err: Error | null, rows?: unknown[]) => void;
		// sqlite3 calls back with the statement as `this` (run's lastID and changes are set on it).
		const statement = this.statements.get(sql);
		if (statement) {
			// Most recently used last.
			this.statements.delete(sql);
			this.statements.set(sql, statement);
			statement[method](params, (err: Error | null, rows?: unknown[]) => {
				if (err) this.drop(sql, statement);
				done.call(statement, err, rows);
			});
			return true;
		}
		// Prepared for this call, kept once it has run well. A statement that fails to prepare emits
		// its error (prepare's callback would cost a trip of its own to the thread pool: it binds),
		// and sqlite3 drops the run queued on it, as its own methods do.
		const prepared = this.prepare(sql);
		const failed = (err: Error) => done.call(prepared, err);
		prepared.once('error', failed);
		prepared[method](params, (err: Error | null, rows?: unknown[]) => {
			prepared.removeListener('error', failed);
			if (err) prepared.finalize();
			else this.keep(sql, prepared);
			done.call(prepared, err, rows);
		});
		return true;
	}

	private keep(sql: string, statement: sqlite3.Statement): void {
		// Two calls of a text not kept yet each prepared one: the first kept stays.
		if (this.statements.has(sql)) {
			statement.finalize();
			return;
		}
		this.statements.set(sql, statement);
		if (this.statements.size > MAX_STATEMENTS) {
			const [oldest, old] = this.statements.entries().next().value as [string, sqlite3.Statement];
			this.statements.delete(oldest);
			old.finalize();
		}
	}

	private drop(sql: string, statement: sqlite3.Statement): void {
		if (this.statements.get(sql) === statement) this.statements.delete(sql);
		statement.finalize();
	}

	/** Kept for the next handle on the file while fewer than MAX_IDLE are; an in-memory database is its handle, so it really closes. */
	override close(callback?: (err: Error | null) => void): void {
		if (this.file === ':memory:') {
			this.shut(callback);
			return;
		}
		if (this.endedAt === this.calls) {
			// Its last statement ended its transaction: clean as it is, kept at once (for the very
			// next transaction, whose pages it still holds in its cache).
			this.settle(callback);
			return;
		}
		const pending = settling.get(this.file) ?? new Set<Promise<void>>();
		settling.set(this.file, pending);
		const settled = new Promise<void>((resolve) => {
			this.run('ROLLBACK', () => {
				// Rolled back, or there was nothing to roll back: either way no transaction is open.
				this.endedAt = this.calls;
				this.settle(callback);
				pending.delete(settled);
				resolve();
			});
		});
		pending.add(settled);
	}

	/** Kept for the next handle while fewer than MAX_IDLE are, closed for good otherwise. */
	private settle(callback?: (err: Error | null) => void): void {
		const kept = idle.get(this.file) ?? [];
		if (kept.length < MAX_IDLE) {
			idle.set(this.file, [...kept, this]);
			if (callback) process.nextTick(() => callback(null));
		} else {
			this.shut(callback);
		}
	}

	/** Closes for good, its kept statements finalized first: a handle with statements open cannot close. */
	private shut(callback?: (err: Error | null) => void): void {
		const statements = [...this.statements.values()];
		this.statements.clear();
		void Promise.all(statements.map((statement) => new Promise<void>((resolve) => statement.finalize(() => resolve())))).then(() => super.close(callback));
	}

	/** Really closes the kept handles of `file`, those still settling included (Database.close). */
	static async closeIdle(file: string): Promise<void> {
		await Promise.all([...(settling.get(file) ?? [])]);
		const kept = idle.get(file) ?? [];
		idle.delete(file);
		await Promise.all(kept.map((handle) => new Promise<void>((resolve) => handle.shut(() => resolve()))));
	}
}

export const sqliteDriver = { ...sqlite3, Database: Handle };

export const closeIdleHandles = (file: string) => Handle.closeIdle(file);
