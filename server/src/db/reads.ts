import { Pool } from 'pg';
import type { Sequelize } from 'sequelize';
import sqlite3 from 'sqlite3';

/**
 * The per-request reads (key lookup, list pages and totals, single records, the event feed),
 * run as prepared statements on a driver handle of their own: a `sqlite3` connection with its
 * statements kept open, or a `pg` pool with named statements (parsed and planned once per
 * connection). Sequelize stays for migrations, writes, the CLI and the settings pages; on the
 * hot path its query building and result handling cost more than the queries themselves.
 *
 * SQL is written once, in each component's queries.ts, with PostgreSQL's `$1, $2…` parameters.
 * SQLite reads `$1` as a parameter *named* "1", so its statements are given `?1, ?2…`, which
 * bind by position. A read on its own connection sees every committed write (WAL on SQLite).
 */

type Row = Record<string, unknown>;

/** One statement: its SQL and which result columns are timestamps (SQLite returns text). */
export interface Statement {
	readonly sql: string;
	readonly dates: readonly string[];
}

export interface Reads {
	rows<R>(statement: Statement, params: readonly unknown[]): Promise<R[]>;
	close(): Promise<void>;
}

/**
 * A statement, made once per distinct SQL text: a component's fixed statements are module
 * constants, and the few shapes a list's filters produce are kept here by text, so each is
 * prepared once per connection however often it is asked for.
 */
const made = new Map<string, Statement>();
const MAX_KEPT = 1_000;

export function statement(sql: string, dates: readonly string[] = []): Statement {
	const key = `${dates.join(',')}\n${sql}`;
	let found = made.get(key);
	if (!found) {
		found = Object.freeze({ sql, dates: Object.freeze([...dates]) });
		if (made.size < MAX_KEPT) made.set(key, found);
	}
	return found;
}

/** The number written in `text` from `from` to `to`, or NaN unless every character is a digit. */
function digitsAt(text: string, from: number, to: number): number {
	let n = 0;
	for (let i = from; i < to; i++) {
		const digit = text.charCodeAt(i) - 48;
		if (digit < 0 || digit > 9) return NaN;
		n = n * 10 + digit;
	}
	return n;
}

/** Whether `text` has the shape Sequelize stores in SQLite: `2026-05-01 09:30:00.000 +00:00` (UTC). */
function isSequelizeUtc(text: string): boolean {
	return (
		text.length === 30 &&
		text.endsWith(' +00:00') &&
		text[4] === '-' &&
		text[7] === '-' &&
		text[10] === ' ' &&
		text[13] === ':' &&
		text[16] === ':' &&
		text[19] === '.'
	);
}

/**
 * The time such a timestamp stands for, read digit by digit (a page has a few timestamps per
 * row, and a regular expression's match and a string for Date to parse were a tenth of the
 * page's own cost); NaN where Date's parser must decide (a field out of range, which Date.UTC
 * would carry over, or a year 0–99, which it reads as 19xx).
 */
function sequelizeUtcTime(text: string): number {
	const year = digitsAt(text, 0, 4);
	const month = digitsAt(text, 5, 7);
	const day = digitsAt(text, 8, 10);
	const hours = digitsAt(text, 11, 13);
	const minutes = digitsAt(text, 14, 16);
	const seconds = digitsAt(text, 17, 19);
	if (!(year >= 100 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hours <= 23 && minutes <= 59 && seconds <= 59)) return NaN;
	return Date.UTC(year, month - 1, day, hours, minutes, seconds, digitsAt(text, 20, 23));
}

/**
 * A timestamp as SQLite holds it (`2026-05-01 09:30:00.000 +00:00`; any other offset; or none,
 * meaning UTC).
 */
export function toDate(value: Date | string | null | undefined): Date | null {
	if (value === null || value === undefined) return null;
	if (value instanceof Date) return value;
	if (isSequelizeUtc(value)) {
		const time = sequelizeUtcTime(value);
		return new Date(Number.isNaN(time) ? `${value.slice(0, 10)}T${value.slice(11, 23)}Z` : time);
	}
	return new Date(/[+-]\d\d:\d\d$|Z$/.test(value) ? value : `${value}+00:00`);
}

/**
 * A timestamp as Sequelize stores it in SQLite: text in UTC (`2026-05-01 09:30:00.000 +00:00`),
 * which sorts as time does. Raw SQL binds this too, so raw and model writes compare alike.
 */
export function sqliteTimestamp(date: Date): string {
	const iso = date.toISOString();
	return `${iso.slice(0, 10)} ${iso.slice(11, 23)} +00:00`;
}

/**
 * A parameter as SQLite compares it with stored values: the driver would bind a Date as a
 * number, and every number sorts before every text in SQLite.
 */
function sqliteValue(value: unknown): unknown {
	return value instanceof Date ? sqliteTimestamp(value) : value;
}

/** SQLite read connections per process: a list's page and its total are read at once. */
const SQLITE_READ_CONNECTIONS = 2;

/**
 * One SQLite connection: its statements stay prepared, by SQL text; a statement that fails to
 * prepare (a table not migrated yet) is not kept.
 */
function sqliteConnection(file: string) {
	const ready = new Promise<sqlite3.Database>((resolve, reject) => {
		const db = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (err) => {
			if (err) return reject(err);
			db.configure('busyTimeout', 5000);
			// Nothing on this connection may ever write.
			db.exec('PRAGMA query_only = ON', (pragmaErr) => (pragmaErr ? reject(pragmaErr) : resolve(db)));
		});
	});
	ready.catch(() => undefined);
	// By SQL text: the statement, or the promise of it while it is being prepared.
	const statements = new Map<string, sqlite3.Statement | Promise<sqlite3.Statement>>();
	const prepare = (sql: string) => {
		const found = statements.get(sql);
		if (found) return found;
		const preparing = ready.then(
			(db) =>
				new Promise<sqlite3.Statement>((resolve, reject) => {
					const handle = db.prepare(sql.replace(/\$(\d+)/g, '?$1'), (err: Error | null) => (err ? reject(err) : resolve(handle)));
				}),
		);
		statements.set(sql, preparing);
		// Once prepared, reads use the statement itself and skip a wait on a promise.
		preparing.then(
			(handle) => statements.set(sql, handle),
			() => statements.delete(sql),
		);
		return preparing;
	};
	return {
		/** Reads in flight on this connection. */
		busy: 0,
		async all(s: Statement, params: readonly unknown[]): Promise<Row[]> {
			const found = prepare(s.sql);
			const handle = found instanceof Promise ? await found : found;
			return new Promise<Row[]>((resolve, reject) =>
				handle.all(params.map(sqliteValue), (err: Error | null, result: Row[]) => (err ? reject(err) : resolve(result))),
			);
		},
		async close() {
			const db = await ready.catch(() => undefined);
			if (!db) return;
			const handles = await Promise.all([...statements.values()].map((p) => Promise.resolve(p).catch(() => undefined)));
			statements.clear();
			const finalize = (h: sqlite3.Statement) => new Promise<void>((resolve) => h.finalize(() => resolve()));
			await Promise.all(handles.filter((h) => h !== undefined).map(finalize));
			await new Promise<void>((resolve) => db.close(() => resolve()));
		},
	};
}

/**
 * SQLite reads on connections of their own. A connection runs one statement at a time, so a
 * read goes to the least busy one: a search's page and its count (tens of milliseconds each on
 * a million users) then run side by side instead of one after the other.
 */
export function sqliteReads(file: string): Reads {
	const connections = Array.from({ length: SQLITE_READ_CONNECTIONS }, () => sqliteConnection(file));
	return {
		async rows<R>(s: Statement, params: readonly unknown[]): Promise<R[]> {
			const connection = connections.reduce((a, b) => (b.busy < a.busy ? b : a));
			connection.busy++;
			let rows: Row[];
			try {
				rows = await connection.all(s, params);
			} finally {
				connection.busy--;
			}
			if (s.dates.length > 0) {
				for (const row of rows) for (const name of s.dates) row[name] = toDate(row[name] as string | null);
			}
			return rows as R[];
		},
		async close() {
			await Promise.all(connections.map((c) => c.close()));
		},
	};
}

export function postgresReads(databaseUrl: string, max: number): Reads {
	// Idle connections never keep the process alive; a CLI command that read ends when it is done.
	// As Sequelize's pool: a read waits at most 30 s for a connection, then fails (a 500).
	const pool = new Pool({ connectionString: databaseUrl, max, idleTimeoutMillis: 10_000, connectionTimeoutMillis: 30_000, allowExitOnIdle: true });
	pool.on('error', () => {
		// An idle connection dropped by the server: the pool replaces it at the next read.
	});
	// A name per SQL text: pg prepares a named statement once on each connection, then reuses it.
	const names = new Map<string, string>();
	return {
		async rows<R>(s: Statement, params: readonly unknown[]): Promise<R[]> {
			let name = names.get(s.sql);
			if (!name) {
				name = `lms_read_${names.size + 1}`;
				names.set(s.sql, name);
			}
			const result = await pool.query({ name, text: s.sql, values: params as unknown[] });
			return result.rows as R[];
		},
		async close() {
			await pool.end();
		},
	};
}

const factories = new WeakMap<Sequelize, () => Reads>();
const opened = new WeakMap<Sequelize, Reads>();

/**
 * Gives a database Sequelize has open its read handle (`open`), made at the first read and
 * closed by sequelize.close().
 */
export function attachReads(sequelize: Sequelize, open: () => Reads): void {
	factories.set(sequelize, open);
	const close = sequelize.close.bind(sequelize);
	sequelize.close = async () => {
		const reads = opened.get(sequelize);
		opened.delete(sequelize);
		await reads?.close();
		await close();
	};
}

/** The read handle of a database opened by openDatabase(). */
export function readsOf(sequelize: Sequelize): Reads {
	let reads = opened.get(sequelize);
	if (!reads) {
		const factory = factories.get(sequelize);
		if (!factory) throw new Error('this database was not opened by openDatabase(): it has no read handle');
		reads = factory();
		opened.set(sequelize, reads);
	}
	return reads;
}
