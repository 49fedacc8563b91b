import sqlite3 from 'sqlite3';

/**
 * Handles of finished write transactions kept open for the next ones, by file. Sequelize opens a
 * handle per transaction and closes it after the COMMIT: every write then paid for opening the
 * file, the PRAGMAs below, parsing the whole schema again at its first statement, and closing
 * (a fifth of a webhook delivery's CPU, issue 40). Writes take turns (write-transaction.ts), so
 * two kept handles serve them all.
 */
const idle = new Map<string, Handle[]>();
const MAX_IDLE = 2;

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
 * A transaction's handle, once Sequelize closes it, is kept for the next transaction on the file
 * (`idle`), with the statements prepared on it (Database.prepared, db/prepared.ts).
 */
class Handle extends sqlite3.Database {
	/** Set by Sequelize while a transaction holds the handle (sequelize/lib/transaction.js). */
	declare uuid: string | undefined;
	/** Statements prepared on this handle by SQL text; finalized before it really closes. */
	declare statements: Map<string, Promise<sqlite3.Statement>>;
	declare private file: string;

	constructor(filename: string, mode?: number, callback?: (err: Error | null) => void) {
		const kept = idle.get(filename)?.pop();
		if (kept) {
			process.nextTick(() => callback?.(null));
			return kept;
		}
		super(filename, mode ?? sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE, (err) => {
			if (!err) {
				this.configure('busyTimeout', 5000);
				this.run('PRAGMA cache_size = -65536');
				this.run('PRAGMA synchronous = NORMAL');
			}
			callback?.(err);
		});
		this.file = filename;
		this.statements = new Map();
	}

	/** Sequelize releasing a transaction's handle: kept for the next one while fewer than MAX_IDLE are. */
	override close(callback?: (err: Error | null) => void): this {
		const kept = idle.get(this.file) ?? [];
		if (this.uuid !== undefined && this.file !== ':memory:' && kept.length < MAX_IDLE) {
			idle.set(this.file, [...kept, this]);
			if (callback) process.nextTick(() => callback(null));
			return this;
		}
		void this.finalizeAll().then(() => super.close(callback));
		return this;
	}

	private async finalizeAll(): Promise<void> {
		const statements = [...this.statements.values()];
		this.statements.clear();
		await Promise.all(
			statements.map(async (prepared) => {
				const statement = await prepared.catch(() => undefined);
				await new Promise<void>((resolve) => (statement ? statement.finalize(() => resolve()) : resolve()));
			}),
		);
	}

	/** Really closes the kept handles of `file` (Database.close). */
	static async closeIdle(file: string): Promise<void> {
		const kept = idle.get(file) ?? [];
		idle.delete(file);
		await Promise.all(
			kept.map(
				(handle) =>
					new Promise<void>((resolve) => {
						handle.uuid = undefined;
						handle.close(() => resolve());
					}),
			),
		);
	}
}

export type SqliteHandle = Handle;

export const sqliteDriver = { ...sqlite3, Database: Handle };

export const closeIdleHandles = (file: string) => Handle.closeIdle(file);
