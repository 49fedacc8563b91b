import sqlite3 from 'sqlite3';

/**
 * sqlite3 with a 5 s busy timeout on every handle. Sequelize opens one handle per transaction
 * and skips its connect hooks for SQLite, so the driver itself is the only place this can go.
 */
class Database extends sqlite3.Database {
	constructor(filename: string, mode?: number, callback?: (err: Error | null) => void) {
		super(filename, mode ?? sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE, (err) => {
			if (!err) this.configure('busyTimeout', 5000);
			callback?.(err);
		});
	}
}

export const sqliteDriver = { ...sqlite3, Database };
