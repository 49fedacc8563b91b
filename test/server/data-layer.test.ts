import sqlite3 from 'sqlite3';

import { authenticate } from '../../server/src/api-keys/authenticate';
import { createKey, rotateKey } from '../../server/src/api-keys/lifecycle';
import { RuleError } from '../../server/src/common/rule-error';
import { ApiKey, connect, Course, migrate, Organization, User, type Database } from '../../server/src/db';
import { openDatabase, sqliteFile } from '../../server/src/db/database';
import { closeIdleHandles, sqliteDriver } from '../../server/src/db/sqlite-driver';
import { enrollStudent } from '../../server/src/enrollments/enroll';
import { migrator } from '../../server/src/db/migrate';
import { PreparedReads } from '../../server/src/db/prepared';
import { countRows, readPage, type PageRequest, type Table } from '../../server/src/db/table';
import { Where } from '../../server/src/db/where';
import { writeTransaction } from '../../server/src/db/write-transaction';
import { USERS, userConditions } from '../../server/src/users/queries';
import { createOrganization } from '../../server/src/organizations/service';
import { createUser } from '../../server/src/users/service';
import { createTestDatabase, testDialect, type TestDatabase } from '../helpers/database';
import { waitUntil } from '../helpers/wait';

/** A list page and its counted total, as the list endpoints read them (db/table.ts). */
async function pageOf<R>(table: Table<R>, where: Where, page: PageRequest): Promise<{ rows: R[]; total: number }> {
	const [rows, total] = await Promise.all([readPage(table, where, page), countRows(table, where)]);
	return { rows, total };
}
const inOrganization = (organizationId: string) => new Where().equals('organization_id', organizationId);
function searching(organizationId: string, search: string): Where {
	const where = new Where();
	userConditions(where, organizationId, { search });
	return where;
}

/**
 * The data layer behaves the same on SQLite and PostgreSQL (run this file under both:
 * `npm test` and `npm run test:postgres`). On PostgreSQL the database collates by language
 * (ICU en-US), as most production servers do, so that nothing here leans on this machine's
 * byte-order default.
 */
describe(`data layer (${testDialect()})`, () => {
	let database: TestDatabase;
	let db: Database;
	let org: Organization;

	beforeAll(async () => {
		database = await createTestDatabase({ languageCollation: true });
		db = await connect({ databaseUrl: database.databaseUrl, poolMax: 10 });
		await migrate(db);
		org = await createOrganization({ name: 'Acme', slug: 'acme', plan: 'enterprise' });
	});
	afterAll(async () => {
		await db?.close();
		await database?.remove();
	});

	test('migrating an up-to-date database does nothing', async () => {
		expect(await migrate(db)).toEqual([]);
	});

	// Sequelize opens an SQLite handle per transaction; a handle left at SQLite's default (FULL)
	// synced the WAL on every commit: ~30 ms a COMMIT at load 16, most of a group join.
	(testDialect() === 'sqlite' ? test : test.skip)('every SQLite handle, a write transaction\'s own included, commits with synchronous = NORMAL', async () => {
		const level = await writeTransaction(db, async (transaction) => (await db.rows<{ synchronous: number }>('PRAGMA synchronous', [], transaction))[0].synchronous);
		expect(level).toBe(1);
	});

	// Sequelize opens a handle per transaction and closes it after; the driver keeps the closed
	// ones for the next (db/sqlite-driver.ts), judging by the handle alone, never Sequelize's state.
	(testDialect() === 'sqlite' ? describe : describe.skip)('SQLite handles kept for the next transaction', () => {
		const open = (file: string) =>
			new Promise<sqlite3.Database>((resolve, reject) => {
				const handle: sqlite3.Database = new sqliteDriver.Database(file, undefined, (err: Error | null) => (err ? reject(err) : resolve(handle)));
			});
		const close = (handle: sqlite3.Database) => new Promise<void>((resolve) => handle.close(() => resolve()));
		const all = <R>(handle: sqlite3.Database, sql: string) =>
			new Promise<R[]>((resolve, reject) => handle.all(sql, (err: Error | null, rows: R[]) => (err ? reject(err) : resolve(rows))));

		test('a closed handle serves the next one on its file, with no transaction left open on it', async () => {
			const file = sqliteFile(database.databaseUrl);
			const first = await open(file);
			await all(first, 'BEGIN IMMEDIATE');
			await all(first, "CREATE TABLE kept_handle_probe (x INTEGER)");
			await close(first);
			const next = await open(file);
			try {
				expect(next).toBe(first);
				// The transaction was rolled back: the table is not there, and a new one can begin.
				expect(await all(next, "SELECT name FROM sqlite_master WHERE name = 'kept_handle_probe'")).toEqual([]);
				await all(next, 'BEGIN IMMEDIATE');
				await all(next, 'ROLLBACK');
			} finally {
				await close(next);
			}
		});

		test('handles opened and closed one after another are one kept handle, and closeIdleHandles really closes it', async () => {
			const file = sqliteFile(database.databaseUrl);
			const seen = new Set<sqlite3.Database>();
			for (let i = 0; i < 5; i++) {
				const handle = await open(file);
				seen.add(handle);
				await close(handle);
			}
			expect(seen.size).toBe(1);
			const [kept] = [...seen];
			await closeIdleHandles(file);
			await expect(all(kept, 'SELECT 1')).rejects.toThrow(/SQLITE_MISUSE/);
			const fresh = await open(file);
			expect(fresh).not.toBe(kept);
			await close(fresh);
		});

		// What reaches SQLite (sqlite3's own run and all, which the handle's call): setting a pragma
		// expires every statement kept on the handle, and a ROLLBACK after a COMMIT only fails.
		test('a write transaction on a kept handle sends SQLite neither FOREIGN_KEYS=ON again nor a ROLLBACK after its COMMIT', async () => {
			await writeTransaction(db, (transaction) => db.rows('SELECT 1 AS one', [], transaction));
			// Spies call through: the statements still run.
			const spies = [jest.spyOn(sqlite3.Database.prototype, 'run'), jest.spyOn(sqlite3.Database.prototype, 'all')];
			let sent: string[] = [];
			try {
				for (let i = 0; i < 3; i++) await writeTransaction(db, (transaction) => db.rows(`SELECT ${i} AS one`, [], transaction));
				sent = spies.flatMap((spy) => spy.mock.calls.map(([sql]) => String(sql)));
			} finally {
				for (const spy of spies) spy.mockRestore();
			}
			// Statements the handle keeps prepared never reach sqlite3's own methods again: the texts
			// seen are first preparations only; none is the pragma or the ROLLBACK.
			expect(sent.filter((sql) => /FOREIGN_KEYS|ROLLBACK/i.test(sql))).toEqual([]);
			// Still enforced: a row pointing nowhere is refused.
			await expect(
				writeTransaction(db, (transaction) =>
					db.run("INSERT INTO enrollments (id, organization_id, student_id, course_id, status, progress_percent, enrolled_at, created_at, updated_at) VALUES ('enr_nowhere', 'org_nowhere', 'usr_nowhere', 'crs_nowhere', 'active', 0, '2026-01-01', '2026-01-01', '2026-01-01')", [], transaction),
				),
			).rejects.toThrow(/FOREIGN KEY/);
		});

		test('foreign keys set off on a handle, or set on where SQLite ignores it, are set on again when Sequelize asks', async () => {
			const file = sqliteFile(database.databaseUrl);
			const handle = await open(file);
			const run = (sql: string) => new Promise<void>((resolve, reject) => handle.run(sql, (err: Error | null) => (err ? reject(err) : resolve())));
			try {
				await run('PRAGMA FOREIGN_KEYS=ON');
				// Set off by a query that reads rows (Sequelize's query runs a PRAGMA with `all`).
				await all(handle, 'PRAGMA foreign_keys = OFF');
				expect(await all(handle, 'PRAGMA foreign_keys')).toEqual([{ foreign_keys: 0 }]);
				// As Sequelize's connection manager calls it: no callback, so waited for.
				handle.run('PRAGMA FOREIGN_KEYS=ON');
				await waitUntil(async () => (await all<{ foreign_keys: number }>(handle, 'PRAGMA foreign_keys'))[0].foreign_keys === 1, { what: 'foreign_keys set on again' });
				await run('PRAGMA FOREIGN_KEYS=ON');
				expect(await all(handle, 'PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }]);
				// Inside a transaction SQLite ignores the setting: set on there, they are still off after.
				await run('PRAGMA foreign_keys = OFF');
				await all(handle, 'BEGIN IMMEDIATE');
				await run('PRAGMA FOREIGN_KEYS=ON');
				await all(handle, 'COMMIT');
				expect(await all(handle, 'PRAGMA foreign_keys')).toEqual([{ foreign_keys: 0 }]);
				await run('PRAGMA FOREIGN_KEYS=ON');
				expect(await all(handle, 'PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }]);
			} finally {
				await close(handle);
			}
		});

		test('a handle closed after a COMMIT and then a statement is rolled back before it serves again', async () => {
			const file = sqliteFile(database.databaseUrl);
			const first = await open(file);
			await all(first, 'BEGIN IMMEDIATE');
			await all(first, 'COMMIT');
			await all(first, 'BEGIN IMMEDIATE');
			await all(first, 'CREATE TABLE kept_after_commit_probe (x INTEGER)');
			await close(first);
			const next = await open(file);
			try {
				expect(next).toBe(first);
				expect(await all(next, "SELECT name FROM sqlite_master WHERE name = 'kept_after_commit_probe'")).toEqual([]);
			} finally {
				await close(next);
			}
		});

		// A handle keeps the statements run on it prepared (sqlite-driver.ts): as sqlite3's own methods behave, run after run.
		test('statements run again on a handle bind each run\'s parameters, tell changes and lastID, report each failure, and leave none half-stepped', async () => {
			const file = sqliteFile(database.databaseUrl);
			const handle = await open(file);
			const rows = <R>(sql: string, params: object) =>
				new Promise<R[]>((resolve, reject) => handle.all(sql, params, (err: Error | null, found: R[]) => (err ? reject(err) : resolve(found))));
			const run = (sql: string, params: object) =>
				new Promise<{ lastID: number; changes: number }>((resolve, reject) =>
					handle.run(sql, params, function (err: Error | null) {
						if (err) reject(err);
						else resolve({ lastID: this.lastID, changes: this.changes });
					}),
				);
			const insert = 'INSERT INTO kept_statements_probe (v) VALUES ($1)';
			try {
				await all(handle, 'CREATE TABLE kept_statements_probe (id INTEGER PRIMARY KEY, v TEXT UNIQUE)');
				expect(await run(insert, { $1: 'a' })).toEqual({ lastID: 1, changes: 1 });
				expect(await run(insert, { $1: 'b' })).toEqual({ lastID: 2, changes: 1 });
				await expect(run(insert, { $1: 'a' })).rejects.toThrow(/SQLITE_CONSTRAINT/);
				expect(await run(insert, { $1: 'c' })).toEqual({ lastID: 3, changes: 1 });
				const byId = 'SELECT v FROM kept_statements_probe WHERE id = $1';
				expect(await rows(byId, { $1: 1 })).toEqual([{ v: 'a' }]);
				expect(await rows(byId, { $1: 3 })).toEqual([{ v: 'c' }]);
				for (let i = 0; i < 2; i++) await expect(rows('SELEC v FROM kept_statements_probe', {})).rejects.toThrow(/SQLITE_ERROR/);
				// A write that returns rows, run by `run` (one step), then COMMIT: nothing is left running on the handle.
				await all(handle, 'BEGIN IMMEDIATE');
				await run("UPDATE kept_statements_probe SET v = v || '!' RETURNING id", {});
				await all(handle, 'COMMIT');
				expect(await rows('SELECT COUNT(*) AS n FROM kept_statements_probe WHERE v LIKE $1', { $1: '%!' })).toEqual([{ n: 3 }]);
			} finally {
				await all(handle, 'DROP TABLE IF EXISTS kept_statements_probe');
				await close(handle);
			}
			// The kept handle, its statements finalized, really closes.
			await closeIdleHandles(file);
			await expect(all(handle, 'SELECT 1')).rejects.toThrow(/SQLITE_MISUSE/);
		});
	});

	// SQLite is one process by design; several instances mean PostgreSQL.
	(testDialect() === 'postgres' ? test : test.skip)('instances that start at once migrate one at a time (advisory lock)', async () => {
		const fresh = await createTestDatabase();
		// openDatabase, not connect: the models stay bound to this file's database.
		const instances = await Promise.all([1, 2, 3].map(() => openDatabase({ databaseUrl: fresh.databaseUrl, poolMax: 1 })));
		try {
			const applied = await Promise.all(instances.map((s) => migrate(s)));
			expect(applied.filter((names) => names.length > 0)).toHaveLength(1);
			// Every migration once, in the listed order (the list grows; it is not repeated here).
			const listed = (await migrator(instances[0]).migrations(instances[0].sequelize.getQueryInterface())).map((m) => m.name);
			expect(listed[0]).toBe('0001-initial');
			expect(applied.flat()).toEqual(listed);
		} finally {
			await Promise.all(instances.map((s) => s.close()));
			await fresh.remove();
		}
	});

	// /metrics' pool gauges (metrics/registry.ts), told by Sequelize's public hooks (db/pool-watch.ts).
	(testDialect() === 'postgres' ? test : test.skip)('the pool watch counts open connections and the queries waiting for one', async () => {
		const fresh = await createTestDatabase();
		const one = await openDatabase({ databaseUrl: fresh.databaseUrl, poolMax: 1 });
		let release = () => {};
		try {
			expect(one.pool.max).toBe(1);
			expect(one.pool.waiters()).toBe(0);
			const held = writeTransaction(one, () => new Promise<void>((resolve) => (release = resolve)));
			await waitUntil(() => one.pool.connections() === 1, { what: 'the transaction holding the only connection' });
			const reads = [one.read('SELECT 1 AS n'), one.rows('SELECT 2 AS n')];
			await waitUntil(() => one.pool.waiters() === 2, { what: 'both reads waiting for the connection' });
			release();
			await held;
			expect((await Promise.all(reads)).flat()).toEqual([{ n: 1 }, { n: 2 }]);
			expect(one.pool.waiters()).toBe(0);
			expect(one.pool.connections()).toBe(1);
		} finally {
			release();
			await one.close();
			await fresh.remove();
		}
		expect(one.pool.connections()).toBe(0);
	});

	test('migration 0007 indexes the users and courses that exist before it', async () => {
		const fresh = await createTestDatabase();
		const other = await openDatabase({ databaseUrl: fresh.databaseUrl, poolMax: 1 });
		try {
			await migrator(other).up({ to: '0006-events' });
			const now = "'2024-01-01 00:00:00.000 +00:00'";
			await other.sequelize.query(`INSERT INTO organizations (id, name, slug, plan, created_at, updated_at) VALUES ('org_old', 'Old', 'old', 'enterprise', ${now}, ${now})`);
			await other.sequelize.query(
				`INSERT INTO users (id, organization_id, name, email, email_lower, role, password_hash, created_at, updated_at)
				 VALUES ('usr_old', 'org_old', 'Edith Clarke', 'E.Clarke@old.example', 'e.clarke@old.example', 'student', NULL, ${now}, ${now})`,
			);
			await other.sequelize.query(
				`INSERT INTO courses (id, organization_id, title, description, status, published_at, created_at, updated_at)
				 VALUES ('crs_old', 'org_old', 'Power Systems', '', 'published', ${now}, ${now}, ${now})`,
			);
			await migrate(other);
			const [rows] = await other.sequelize.query("SELECT kind, word, record_id FROM search_words WHERE organization_id = 'org_old' ORDER BY kind, word");
			expect(rows).toEqual([
				{ kind: 'course', word: 'power systems', record_id: 'crs_old' },
				{ kind: 'course', word: 'systems', record_id: 'crs_old' },
				{ kind: 'user', word: 'clarke', record_id: 'usr_old' },
				{ kind: 'user', word: 'e.clarke@old.example', record_id: 'usr_old' },
				{ kind: 'user', word: 'edith clarke', record_id: 'usr_old' },
			]);
		} finally {
			await other.close();
			await fresh.remove();
		}
	});

	test('migration 0019 counts the overdue enrollments and certificate expiries that exist before it', async () => {
		const fresh = await createTestDatabase();
		const other = await openDatabase({ databaseUrl: fresh.databaseUrl, poolMax: 1 });
		try {
			await migrator(other).up({ to: '0018-webhook-delivery-exchanges' });
			const sql = (text: string) => other.sequelize.query(text);
			const at = (iso: string) => `'${iso.replace('T', ' ').replace('Z', '')} +00:00'`;
			const t = at('2024-01-01T00:00:00.000Z');
			await sql(`INSERT INTO organizations (id, name, slug, plan, created_at, updated_at) VALUES ('org_old', 'Old', 'old', 'enterprise', ${t}, ${t})`);
			await sql(`INSERT INTO courses (id, organization_id, title, description, status, published_at, created_at, updated_at) VALUES ('crs_old', 'org_old', 'Safety', '', 'published', ${t}, ${t}, ${t})`);
			// Active and marked overdue (counted), active and owed its event (the report reads those live),
			// marked but completed since, withdrawn: one overdue counter of 1.
			const enrollments: Array<[status: string, notified: string]> = [['active', t], ['active', 'NULL'], ['completed', t], ['withdrawn', t]];
			for (const [i, [status, notified]] of enrollments.entries()) {
				await sql(`INSERT INTO users (id, organization_id, name, email, email_lower, role, password_hash, created_at, updated_at)
					VALUES ('usr_old${i}', 'org_old', 'S ${i}', 's${i}@old.example', 's${i}@old.example', 'student', NULL, ${t}, ${t})`);
				await sql(`INSERT INTO enrollments (id, organization_id, student_id, course_id, status, progress_percent, enrolled_at, completed_at, due_at, overdue_notified_at, created_at, updated_at)
					VALUES ('enr_old${i}', 'org_old', 'usr_old${i}', 'crs_old', '${status}', 0, ${t}, NULL, ${at('2024-02-01T00:00:00.000Z')}, ${notified}, ${t}, ${t})`);
			}
			// Certificates by month of expiry in UTC (the first and last half hour of March are both March).
			for (const [i, expires] of [[0, at('2024-03-31T23:30:00.000Z')], [1, at('2024-03-01T00:00:00.000Z')], [2, at('2031-07-15T00:00:00.000Z')], [3, 'NULL']] as const) {
				await sql(`INSERT INTO certificates (id, organization_id, student_id, course_id, enrollment_id, issued_at, expires_at, verification_code, created_at, updated_at)
					VALUES ('cert_old${i}', 'org_old', 'usr_old${i}', 'crs_old', 'enr_old${i}', ${t}, ${expires}, 'OLD${i}', ${t}, ${t})`);
			}
			await migrate(other);
			const [rows] = await other.sequelize.query(
				"SELECT list, filter, n FROM list_counts WHERE organization_id = 'org_old' AND (filter LIKE '%overdue%' OR filter LIKE '%expires%') ORDER BY list, filter",
			);
			expect((rows as Array<{ list: string; filter: string; n: number | string }>).map((r) => ({ ...r, n: Number(r.n) }))).toEqual([
				{ list: 'certificates', filter: 'course=crs_old&expires=2024-03', n: 2 },
				{ list: 'certificates', filter: 'course=crs_old&expires=2031-07', n: 1 },
				{ list: 'enrollments', filter: 'course=crs_old&overdue=true', n: 1 },
			]);
			// And the triggers keep them from then on: the owed one marked, a marked one moved away.
			await sql(`UPDATE enrollments SET overdue_notified_at = ${t} WHERE id = 'enr_old1'`);
			await sql(`UPDATE enrollments SET status = 'completed' WHERE id = 'enr_old0'`);
			await sql(`UPDATE certificates SET expires_at = ${at('2031-07-01T00:00:00.000Z')} WHERE id = 'cert_old0'`);
			const [after] = await other.sequelize.query(
				"SELECT filter, n FROM list_counts WHERE organization_id = 'org_old' AND (filter LIKE '%overdue%' OR filter LIKE '%expires%') ORDER BY filter",
			);
			expect((after as Array<{ filter: string; n: number | string }>).map((r) => [r.filter, Number(r.n)])).toEqual([
				['course=crs_old&expires=2024-03', 1],
				['course=crs_old&expires=2031-07', 2],
				['course=crs_old&overdue=true', 1],
			]);
			// Down and up again leave the same counters.
			await migrator(other).down({ to: '0019-report-counters' });
			await migrate(other);
			const [again] = await other.sequelize.query(
				"SELECT filter, n FROM list_counts WHERE organization_id = 'org_old' AND (filter LIKE '%overdue%' OR filter LIKE '%expires%') ORDER BY filter",
			);
			expect(again).toEqual(after);
		} finally {
			await other.close();
			await fresh.remove();
		}
	});

	test('search ranges compare code points, whatever the database collation', async () => {
		const page = { page: 1, perPage: 50 };
		const names = ['Zoë Ångström', 'Anders Zorn', 'Åsa Berg'];
		const made = [];
		for (const name of names) made.push(await createUser({ organization: org, email: `${made.length}@collate.example`, name, role: 'student', password: undefined }));
		const found = async (text: string) =>
			(await pageOf(USERS, searching(org.id, text), page)).rows.map((u) => u.name).sort();
		expect(await found('åN')).toEqual(['Zoë Ångström']);
		expect(await found('an')).toEqual(['Anders Zorn']);
		expect(await found('zo')).toEqual(['Anders Zorn', 'Zoë Ångström']);
		expect(await found('zoë å')).toEqual(['Zoë Ångström']);
	});

	test('users created at once are each indexed in their own transaction, and found at once', async () => {
		const made = await Promise.all(
			Array.from({ length: 12 }, (_, i) => createUser({ organization: org, email: `race${i}@race.example`, name: `Racer Number${i}`, role: 'student', password: undefined })),
		);
		const { rows, total } = await pageOf(USERS, searching(org.id, 'RACER'), { page: 1, perPage: 50 });
		expect(total).toBe(12);
		expect(rows.map((u) => u.id).sort()).toEqual(made.map((u) => u.id).sort());
	});

	test('timestamps keep their milliseconds and order by instant', async () => {
		const base = Date.UTC(2024, 5, 1, 12, 0, 0, 0);
		const made = [];
		for (const ms of [7, 1, 999, 0, 2]) {
			made.push(await User.create({ organizationId: org.id, name: `T${ms}`, email: `t${ms}@ms.example`, role: 'student', passwordHash: null, createdAt: new Date(base + ms) }));
		}
		const back = await User.findAll({ where: { id: made.map((u) => u.id) }, order: [['createdAt', 'ASC']] });
		expect(back.map((u) => u.createdAt.toISOString())).toEqual(
			[0, 1, 2, 7, 999].map((ms) => new Date(base + ms).toISOString()),
		);
		expect(back.map((u) => u.createdAt.toISOString())[4]).toBe('2024-06-01T12:00:00.999Z');
	});

	test('records created in the same millisecond come back in byte order of their ids, page after page', async () => {
		const other = await Organization.create({ name: 'Ties', slug: 'ties', plan: 'enterprise' });
		const createdAt = new Date(Date.UTC(2024, 0, 1));
		// Ids that a language collation and byte order sort differently.
		const ids = ['usr_aaaa', 'usr_BBBB', 'usr_bbbb', 'usr_ZZZZ', 'usr_0000', 'usr_zzzz', 'usr_AAAA', 'usr_Mmmm', 'usr_mMMM'];
		for (const [n, id] of ids.entries()) {
			await User.create({ id, organizationId: other.id, name: id, email: `tie${n}@ties.example`, role: 'student', passwordHash: null, createdAt });
		}
		const expected = [...ids].sort();
		const { rows, total } = await pageOf(USERS, inOrganization(other.id), { page: 1, perPage: 100 });
		expect(total).toBe(ids.length);
		expect(rows.map((u) => u.id)).toEqual(expected);
		const paged: string[] = [];
		for (let page = 1; page <= Math.ceil(ids.length / 2); page++) {
			paged.push(...(await pageOf(USERS, inOrganization(other.id), { page, perPage: 2 })).rows.map((u) => u.id));
		}
		expect(paged).toEqual(expected);
		const past = await pageOf(USERS, inOrganization(other.id), { page: 50, perPage: 2 });
		expect(past).toEqual({ rows: [], total: ids.length });
	});

	test('deep pages (read as ids first, then rows) hold the same rows in the same order as shallow ones', async () => {
		const deep = await Organization.create({ name: 'Deep', slug: 'deep', plan: 'enterprise' });
		const base = Date.UTC(2024, 0, 1);
		// 1,250 users, every fifth pair created in the same millisecond (ties broken by id).
		const users = Array.from({ length: 1250 }, (_, n) => ({
			organizationId: deep.id,
			name: `Deep ${n}`,
			email: `deep${n}@deep.example`,
			emailLower: `deep${n}@deep.example`,
			role: 'student' as const,
			passwordHash: null,
			createdAt: new Date(base + Math.floor(n / 2) * 1000),
		}));
		for (let i = 0; i < users.length; i += 250) await User.bulkCreate(users.slice(i, i + 250));
		const all = await User.findAll({ where: { organizationId: deep.id }, attributes: ['id', 'createdAt'] });
		const expected = all
			.map((u) => ({ id: u.id, at: u.createdAt.getTime() }))
			.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
			.map((u) => u.id);
		const createdAtOf = new Map(all.map((u) => [u.id, u.createdAt.toISOString()]));
		// Offsets 1,000 and beyond take the deferred join; 950 does not.
		for (const page of [20, 21, 22, 25]) {
			const { rows, total } = await pageOf(USERS, inOrganization(deep.id), { page, perPage: 50 });
			expect(total).toBe(1250);
			expect(rows.map((u) => u.id)).toEqual(expected.slice((page - 1) * 50, page * 50));
			// Timestamps come as the API shows them (ISO 8601 text from the database), whole rows.
			expect(rows.every((u) => u.createdAt === createdAtOf.get(u.id) && u.email.endsWith('@deep.example'))).toBe(true);
		}
		expect((await pageOf(USERS, inOrganization(deep.id), { page: 26, perPage: 50 })).rows).toEqual([]);
	});

	test('e-mail is unique ignoring case, and the duplicate is a rule error, not a crash', async () => {
		const first = await createUser({ organization: org, email: 'Mixed.Case@Example.TEST', name: 'Mixed', role: 'student' });
		expect(first.emailLower).toBe('mixed.case@example.test');
		await expect(createUser({ organization: org, email: 'mixed.case@example.test', name: 'Again', role: 'student' })).rejects.toMatchObject({
			code: 'email_taken',
		});
		const found = await User.findAll({ where: { organizationId: org.id, emailLower: 'MIXED.case@example.test'.toLowerCase() } });
		expect(found.map((u) => u.id)).toEqual([first.id]);
	});

	test('a duplicate slug is a rule error too (unique violation mapped on both dialects)', async () => {
		await expect(createOrganization({ name: 'Acme again', slug: 'acme', plan: 'starter' })).rejects.toMatchObject({ code: 'slug_taken' });
	});

	test('50 concurrent identical enrollments: exactly one is created, the rest are refused already_enrolled naming it', async () => {
		const student = await User.create({ organizationId: org.id, name: 'Racer', email: 'racer@acme.example', role: 'student', passwordHash: null });
		const course = await Course.create({ organizationId: org.id, title: 'Race', description: 'd', status: 'published', publishedAt: new Date() });
		const results = await Promise.allSettled(Array.from({ length: 50 }, () => enrollStudent(org.id, student.id, course.id)));
		const created = results.filter((r) => r.status === 'fulfilled');
		expect(created).toHaveLength(1);
		const winner = (created[0] as PromiseFulfilledResult<{ id: string }>).value.id;
		for (const r of results.filter((x) => x.status === 'rejected')) {
			const reason = (r).reason as RuleError;
			expect(reason).toBeInstanceOf(RuleError);
			expect({ code: reason.code, id: reason.details.enrollmentId }).toEqual({ code: 'already_enrolled', id: winner });
		}
	});

	test('last_used_at is written on first use, then at most once a minute', async () => {
		const { apiKey, secret } = await createKey({ organizationId: org.id, label: 'touch', scopes: ['read:users'], actor: { kind: 'cli' } });
		expect(apiKey.lastUsedAt).toBeNull();
		await authenticate(secret);
		const first = await waitUntil(async () => (await ApiKey.findByPk(apiKey.id))!.lastUsedAt, { what: 'last_used_at written' });
		expect(first).toBeInstanceOf(Date);
		expect(Math.abs(first.getTime() - Date.now())).toBeLessThan(5000);
		// The stamp read with the key is fresh: authenticate decides, before it returns, not to write.
		const updates = jest.spyOn(ApiKey, 'update');
		await authenticate(secret);
		expect(updates).not.toHaveBeenCalled();
		updates.mockRestore();
		expect((await ApiKey.findByPk(apiKey.id))!.lastUsedAt!.getTime()).toBe(first.getTime());

		// A stale stamp (over a minute old) is refreshed; the condition is evaluated by the database.
		// (A key of its own: this process wrote the first key's stamp under a minute ago, so it
		// would rightly not write it again whatever the row says.)
		const other = await createKey({ organizationId: org.id, label: 'touch stale', scopes: ['read:users'], actor: { kind: 'cli' } });
		const stale = new Date(Date.now() - 5 * 60_000);
		await ApiKey.update({ lastUsedAt: stale }, { where: { id: other.apiKey.id }, silent: true });
		await authenticate(other.secret);
		await waitUntil(async () => (await ApiKey.findByPk(other.apiKey.id))!.lastUsedAt!.getTime() > stale.getTime(), { what: 'the stale stamp refreshed' });
	});

	test('30 concurrent first uses of a key write last_used_at once: each reads the row before the first write commits', async () => {
		const { apiKey, secret } = await createKey({ organizationId: org.id, label: 'touch at once', scopes: ['read:users'], actor: { kind: 'cli' } });
		const updates = jest.spyOn(ApiKey, 'update');
		try {
			const callers = await Promise.all(Array.from({ length: 30 }, () => authenticate(secret)));
			expect(callers.every((caller) => caller.apiKey.lastUsedAt === null)).toBe(true);
			expect(updates).toHaveBeenCalledTimes(1);
		} finally {
			updates.mockRestore();
		}
		await waitUntil(async () => (await ApiKey.findByPk(apiKey.id))!.lastUsedAt, { what: 'last_used_at written' });
	});

	test('rotation (a write transaction) makes the old key fail at once', async () => {
		const { apiKey, secret } = await createKey({ organizationId: org.id, label: 'rotate me', scopes: ['read:users'], actor: { kind: 'cli' } });
		const { secret: next } = await rotateKey({ keyId: apiKey.id, actor: { kind: 'cli' } });
		await expect(authenticate(secret)).rejects.toMatchObject({ code: 'api_key_rotated' });
		await expect(authenticate(next)).resolves.toMatchObject({ organization: { id: org.id } });
	});

	describe('reads outside a transaction: Database.read (prepared statements on the pool, db/prepared.ts)', () => {
		test('the caller names the door: read() runs prepared, rows() goes through Sequelize, whatever the SQL', async () => {
			const prepared = jest.spyOn(PreparedReads.prototype, 'rows');
			try {
				expect(await db.rows<{ n: number }>('SELECT 1 AS "n"')).toEqual([{ n: 1 }]);
				expect(prepared).not.toHaveBeenCalled();
				expect(await db.read<{ n: number }>('SELECT 1 AS "n"')).toEqual([{ n: 1 }]);
				expect(prepared).toHaveBeenCalledTimes(1);
			} finally {
				prepared.mockRestore();
			}
		});

		test('numbered parameters bind by number, in any order and repeated, on both databases', async () => {
			const rows = await db.read<{ a: string; b: string; again: string }>('SELECT $2 AS "a", $1 AS "b", $2 AS "again"', ['one', 'two']);
			expect(rows).toEqual([{ a: 'two', b: 'one', again: 'two' }]);
		});

		test('a prepared read sees what a write transaction committed, every time it runs', async () => {
			const sql = 'SELECT name AS "name" FROM users WHERE organization_id = $1 AND email_lower = $2';
			const email = `prepared-${Date.now()}@example.com`;
			expect(await db.read(sql, [org.id, email])).toEqual([]);
			await createUser({ organization: org, name: 'Pre Pared', email, role: 'student' });
			expect(await db.read(sql, [org.id, email])).toEqual([{ name: 'Pre Pared' }]);
		});

		test('a read that starts after a commit sees it, even while an older read is still running on the pool', async () => {
			// One SQLite connection serves every such read: the driver runs them one after the other, each
			// with its own snapshot, so an older read in flight cannot hand a newer one a stale view.
			const long = db.read('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000000) SELECT count(*) AS c FROM n');
			const user = await createUser({ organization: org, name: 'Fresh Read', email: `fresh-${Date.now()}@example.com`, role: 'student' });
			expect(await db.read('SELECT id AS "id" FROM users WHERE id = $1', [user.id])).toEqual([{ id: user.id }]);
			await long;
		});

		test('a statement that fails to prepare is reported, and reported again, not cached', async () => {
			await expect(db.read('SELECT nope FROM no_such_table')).rejects.toThrow(/no_such_table/);
			await expect(db.read('SELECT nope FROM no_such_table')).rejects.toThrow(/no_such_table/);
		});

		// pg-driver.ts: Sequelize never names a statement, so PostgreSQL planned each anew (0.4 ms for the events' INSERT).
		(testDialect() === 'postgres' ? test : test.skip)(
			'PostgreSQL: a statement with parameters of rows() and run(), in a transaction too, is prepared once per connection under its name',
			async () => {
				const sql = `SELECT $1::int + 1 AS "n" /* ${Date.now()} */`;
				const run = `UPDATE organizations SET name = name WHERE id = $1 /* ${Date.now()} */`;
				const prepared = await writeTransaction(db, async (transaction) => {
					for (let i = 0; i < 3; i++) expect(await db.rows<{ n: number }>(sql, [i], transaction)).toEqual([{ n: i + 1 }]);
					await db.run(run, ['org_none'], transaction);
					return db.rows<{ statement: string }>('SELECT statement FROM pg_prepared_statements WHERE statement IN ($1, $2)', [sql, run], transaction);
				});
				expect(prepared.map((p) => p.statement).sort()).toEqual([sql, run].sort());
			},
		);

		test('a database with prepared statements closes (they are finalized first)', async () => {
			const other = await openDatabase({ databaseUrl: database.databaseUrl });
			expect(await other.read<{ n: number }>('SELECT 1 AS "n"')).toEqual([{ n: 1 }]);
			await expect(other.close()).resolves.toBeUndefined();
		});
	});
});
