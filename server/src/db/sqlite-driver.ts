import sqlite3 from 'sqlite3';

/**
 * sqlite3 with a 5 s busy timeout and a 64 MiB page cache on every handle. Sequelize opens one
 * handle per transaction and skips its connect hooks for SQLite, so the driver itself is the only
 * place this can go. The cache: SQLite's default keeps 2 MiB of pages, so a read that probes an
 * index at thousands of places (a search matching 11,111 students among 1,000,000 enrollments,
 * search/pages.ts) fetched nearly every page from the operating system again, on every request:
 * 270 against 100 ms at load 16 (bench/pickers.ts). Pages are cached as they are read, so a
 * small database uses little of it. synchronous = NORMAL on every handle, not only the first
 * (database.ts sets it there): a transaction's own handle was left at SQLite's FULL, which syncs
 * the WAL at each COMMIT, ~30 ms of a group join's 60–150 at load 16 (docs/benchmarks.md, Groups
 * and assignments). In WAL mode NORMAL loses no commit to a crash of the process (kill -9), only
 * possibly the last ones to a power cut, as the first handle always allowed.
 */
class Database extends sqlite3.Database {
	constructor(filename: string, mode?: number, callback?: (err: Error | null) => void) {
		super(filename, mode ?? sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE, (err) => {
			if (!err) {
				this.configure('busyTimeout', 5000);
				this.run('PRAGMA cache_size = -65536');
				this.run('PRAGMA synchronous = NORMAL');
			}
			callback?.(err);
		});
	}
}

export const sqliteDriver = { ...sqlite3, Database };
