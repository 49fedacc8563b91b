/**
 * Fills a migrated database with one large organization, fast: every batch is a single
 * multi-row INSERT … SELECT whose rows the database generates itself (a recursive CTE in
 * SQLite, generate_series in PostgreSQL), 100,000 rows per transaction. The rows look like the
 * server's own: ids of the right shape (pseudo-random, unique), timestamps in the format each
 * dialect stores, one second apart, so (created_at, id) order is the insertion order.
 */
import { Client } from 'pg';
import sqlite3 from 'sqlite3';

export const COURSES = 20;
const BATCH = 100_000;
/** 2023-11-14T22:13:20Z: the first row's created_at. */
const EPOCH_S = 1_700_000_000;

export interface LoadPlan {
	organizationId: string;
	users: number;
	enrollments: number;
	/**
	 * Also fill the search index (search_words) as the User and Course model hooks would: the
	 * e-mail and the suffixes of the name from each word ("bench user 42", "user 42", "42"); with
	 * enrollments, the courses' titles the same way ("bench course 7", "course 7", "7").
	 */
	searchWords?: boolean;
	/** Every user whose i is a multiple of this is an instructor, the rest students (default: all students). */
	instructorsEvery?: number;
	/** The COURSES published courses even without enrollments (PostgreSQL always loads them). */
	courses?: boolean;
}

/** The role of user i under `plan` (SQL, both dialects). */
const roleOf = (plan: LoadPlan) => (plan.instructorsEvery === undefined ? "'student'" : `CASE i % ${plan.instructorsEvery} WHEN 0 THEN 'instructor' ELSE 'student' END`);

/** Id suffixes: i ↦ (i × an odd constant) mod 2^40 is a bijection, so they are unique and unordered. */
const SQLITE_SUFFIX = (i: string) => `printf('%010X', (${i} * 2654435761) % 1099511627776)`;
const PG_SUFFIX = (i: string) => `lpad(upper(to_hex((${i}::bigint * 2654435761) % 1099511627776)), 10, '0')`;

export const courseId = (n: number) => `crs_bench${String(n).padStart(2, '0')}`;

/** User i's id as SQLITE_SUFFIX and PG_SUFFIX make it, so a benchmark can name loaded people without listing them. */
export const loadedUserId = (i: number) => `usr_${((BigInt(i) * 2654435761n) % 1099511627776n).toString(16).toUpperCase().padStart(10, '0')}`;

/** The loader deactivates every tenth user (i % 10 = 0, the status CASE below); the rest are active students. */
export const isLoadedUserActive = (i: number) => i % 10 !== 0;

/** The first `count` active students the loader makes, and how many users it must load to make them. */
export function activeStudents(count: number): { students: string[]; users: number } {
	const students: string[] = [];
	let users = 0;
	for (; students.length < count; users++) if (isLoadedUserActive(users)) students.push(loadedUserId(users));
	return { students, users };
}

function sqliteRun(db: sqlite3.Database, sql: string, params: unknown[] = []): Promise<void> {
	return new Promise((resolve, reject) => db.run(sql, params, (err) => (err ? reject(err) : resolve())));
}

async function inBatches(total: number, label: string, work: (from: number, to: number) => Promise<void>): Promise<void> {
	const started = Date.now();
	for (let from = 0; from < total; from += BATCH) {
		await work(from, Math.min(total, from + BATCH));
	}
	const seconds = (Date.now() - started) / 1000;
	console.log(`  loaded ${total.toLocaleString('en-US')} ${label} in ${seconds.toFixed(1)} s (${Math.round(total / seconds).toLocaleString('en-US')} rows/s)`);
}

async function sqliteCourses(db: sqlite3.Database, organizationId: string, ts: (offset: string) => string): Promise<void> {
	const courses = Array.from({ length: COURSES }, (_, n) => `('${courseId(n)}', ?, 'Bench course ${n}', 'Generated', 'published', ${ts('0')}, ${ts('0')}, ${ts('0')})`);
	await sqliteRun(
		db,
		`INSERT INTO courses (id, organization_id, title, description, status, published_at, created_at, updated_at) VALUES ${courses.join(', ')}`,
		courses.map(() => organizationId),
	);
}

/** Courses and enrollments only when `plan.enrollments` > 0. */
export async function loadSqlite(file: string, plan: LoadPlan): Promise<void> {
	const db = await new Promise<sqlite3.Database>((resolve, reject) => {
		const handle = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(handle)));
	});
	try {
		await sqliteRun(db, 'PRAGMA journal_mode = WAL');
		await sqliteRun(db, 'PRAGMA synchronous = NORMAL');
		await sqliteRun(db, 'PRAGMA cache_size = -262144');
		const ts = (offset: string) => `strftime('%Y-%m-%d %H:%M:%f', ${EPOCH_S} + ${offset}, 'unixepoch') || ' +00:00'`;
		const series = `WITH RECURSIVE s(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?)`;

		if (plan.enrollments > 0 || plan.courses) await sqliteCourses(db, plan.organizationId, ts);
		if (plan.enrollments > 0 && plan.searchWords) {
			await sqliteRun(
				db,
				`WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n + 1 < ${COURSES}),
				 w(n, word) AS (SELECT n, 'bench course ' || n FROM c UNION ALL SELECT n, 'course ' || n FROM c UNION ALL SELECT n, CAST(n AS TEXT) FROM c)
				 INSERT INTO search_words (organization_id, kind, word, record_id) SELECT ?, 'course', word, 'crs_bench' || printf('%02d', n) FROM w`,
				[plan.organizationId],
			);
		}
		await inBatches(plan.users, 'users', async (from, to) => {
			await sqliteRun(db, 'BEGIN');
			await sqliteRun(
				db,
				`${series} INSERT INTO users (id, organization_id, name, email, email_lower, username, username_lower, role, password_hash, created_at, updated_at, external_id, status)
				 SELECT 'usr_' || ${SQLITE_SUFFIX('i')}, ?, 'Bench User ' || i, 'user' || i || '@bench.example', 'user' || i || '@bench.example',
				        'user' || i || '@bench.example', 'user' || i || '@bench.example',
				        ${roleOf(plan)}, NULL, ${ts('i')}, ${ts('i')}, 'EMP-' || i, CASE i % 10 WHEN 0 THEN 'deactivated' ELSE 'active' END FROM s`,
				[from, to, plan.organizationId],
			);
			if (plan.searchWords) {
				await sqliteRun(
					db,
					`${series}, w(i, word) AS (
					   SELECT i, 'user' || i || '@bench.example' FROM s UNION ALL SELECT i, 'bench user ' || i FROM s
					   UNION ALL SELECT i, 'user ' || i FROM s UNION ALL SELECT i, CAST(i AS TEXT) FROM s)
					 INSERT INTO search_words (organization_id, kind, word, record_id) SELECT ?, 'user', word, 'usr_' || ${SQLITE_SUFFIX('i')} FROM w`,
					[from, to, plan.organizationId],
				);
			}
			await sqliteRun(db, 'COMMIT');
		});

		if (plan.enrollments === 0) return;
		await inBatches(plan.enrollments, 'enrollments', async (from, to) => {
			await sqliteRun(db, 'BEGIN');
			await sqliteRun(
				db,
				`${series} INSERT INTO enrollments (id, organization_id, student_id, course_id, status, progress_percent, enrolled_at, completed_at, created_at, updated_at)
				 SELECT 'enr_' || ${SQLITE_SUFFIX('i')}, ?, 'usr_' || ${SQLITE_SUFFIX(`(i % ${plan.users})`)},
				        'crs_bench' || printf('%02d', i % ${COURSES}),
				        CASE i % 4 WHEN 0 THEN 'active' WHEN 1 THEN 'completed' WHEN 2 THEN 'withdrawn' ELSE 'expired' END,
				        CASE i % 4 WHEN 1 THEN 100 ELSE 40 END,
				        ${ts('i')}, CASE i % 4 WHEN 1 THEN ${ts('i + 86400')} END, ${ts('i')}, ${ts('i')} FROM s`,
				[from, to, plan.organizationId],
			);
			await sqliteRun(db, 'COMMIT');
		});
	} finally {
		await new Promise((resolve) => db.close(resolve));
	}
}

export async function loadPostgres(databaseUrl: string, plan: LoadPlan): Promise<void> {
	const client = new Client({ connectionString: databaseUrl });
	await client.connect();
	try {
		const ts = (offset: string) => `to_timestamp(${EPOCH_S} + ${offset})`;
		await client.query(
			`INSERT INTO courses (id, organization_id, title, description, status, published_at, created_at, updated_at)
			 SELECT 'crs_bench' || lpad(n::text, 2, '0'), $1, 'Bench course ' || n, 'Generated', 'published', ${ts('0')}, ${ts('0')}, ${ts('0')}
			 FROM generate_series(0, ${COURSES - 1}) AS n`,
			[plan.organizationId],
		);
		if (plan.enrollments > 0 && plan.searchWords) {
			await client.query(
				`INSERT INTO search_words (organization_id, kind, word, record_id)
				 SELECT $1, 'course', w.word, 'crs_bench' || lpad(n::text, 2, '0')
				 FROM generate_series(0, ${COURSES - 1}) AS n,
				      LATERAL (VALUES ('bench course ' || n), ('course ' || n), (n::text)) AS w(word)`,
				[plan.organizationId],
			);
		}
		await inBatches(plan.users, 'users', async (from, to) => {
			await client.query(
				`INSERT INTO users (id, organization_id, name, email, email_lower, username, username_lower, role, password_hash, created_at, updated_at, external_id, status)
				 SELECT 'usr_' || ${PG_SUFFIX('i')}, $1, 'Bench User ' || i, 'user' || i || '@bench.example', 'user' || i || '@bench.example',
				        'user' || i || '@bench.example', 'user' || i || '@bench.example',
				        ${roleOf(plan)}, NULL, ${ts('i')}, ${ts('i')}, 'EMP-' || i, CASE i % 10 WHEN 0 THEN 'deactivated' ELSE 'active' END
				 FROM generate_series($2::int, $3::int - 1) AS i`,
				[plan.organizationId, from, to],
			);
			if (plan.searchWords) {
				await client.query(
					`INSERT INTO search_words (organization_id, kind, word, record_id)
					 SELECT $1, 'user', w.word, 'usr_' || ${PG_SUFFIX('i')}
					 FROM generate_series($2::int, $3::int - 1) AS i,
					      LATERAL (VALUES ('user' || i || '@bench.example'), ('bench user ' || i), ('user ' || i), (i::text)) AS w(word)`,
					[plan.organizationId, from, to],
				);
			}
		});
		await inBatches(plan.enrollments, 'enrollments', async (from, to) => {
			await client.query(
				`INSERT INTO enrollments (id, organization_id, student_id, course_id, status, progress_percent, enrolled_at, completed_at, created_at, updated_at)
				 SELECT 'enr_' || ${PG_SUFFIX('i')}, $1, 'usr_' || ${PG_SUFFIX(`(i % ${plan.users})`)},
				        'crs_bench' || lpad((i % ${COURSES})::text, 2, '0'),
				        (ARRAY['active', 'completed', 'withdrawn', 'expired'])[i % 4 + 1],
				        CASE i % 4 WHEN 1 THEN 100 ELSE 40 END,
				        ${ts('i')}, CASE i % 4 WHEN 1 THEN ${ts('i + 86400')} END, ${ts('i')}, ${ts('i')}
				 FROM generate_series($2::int, $3::int - 1) AS i`,
				[plan.organizationId, from, to],
			);
		});
		// What autovacuum would do shortly after a bulk load: statistics and the visibility map
		// (index-only scans need it).
		const started = Date.now();
		await client.query('VACUUM ANALYZE');
		console.log(`  VACUUM ANALYZE in ${((Date.now() - started) / 1000).toFixed(1)} s`);
	} finally {
		await client.end();
	}
}
