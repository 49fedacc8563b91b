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
 * handle's own state decides, nothing of Sequelize's. A ROLLBACK first ends whatever transaction
 * may be left open on it (none after a COMMIT; its error then is expected and ignored), so a kept
 * handle is as clean as a new one. Database.close() closes the kept handles of its file for good
 * once Sequelize has closed its own (closeIdleHandles).
 */
class Handle extends sqlite3.Database {
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
	}

	/** Kept for the next handle on the file while fewer than MAX_IDLE are; an in-memory database is its handle, so it really closes. */
	override close(callback?: (err: Error | null) => void): void {
		if (this.file === ':memory:') {
			super.close(callback);
			return;
		}
		const pending = settling.get(this.file) ?? new Set<Promise<void>>();
		settling.set(this.file, pending);
		const settled = new Promise<void>((resolve) => {
			this.run('ROLLBACK', () => {
				const kept = idle.get(this.file) ?? [];
				if (kept.length < MAX_IDLE) {
					idle.set(this.file, [...kept, this]);
					callback?.(null);
				} else {
					this.shut(callback);
				}
				pending.delete(settled);
				resolve();
			});
		});
		pending.add(settled);
	}

	private shut(callback?: (err: Error | null) => void): void {
		super.close(callback);
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
