/**
 * `pagination.total` comes from counters the database's triggers keep in the writing transaction
 * (migration 0009), not from counting rows per request. It must stay exact under concurrent
 * writers of every kind: on PostgreSQL (TEST_DATABASE=postgres) writers really run at once.
 * Every total, under every filter the counters serve and a few they do not, is compared with
 * count(*) over the table.
 */
import { QueryTypes } from 'sequelize';

import { Course } from '../../server/src/courses/model';
import { database } from '../../server/src/db';
import { writeTransaction } from '../../server/src/db/write-transaction';
import { createUser } from '../../server/src/users/service';
import type { TestServer } from '../helpers/server';
import { call, startApiServer, type World } from './api-fixtures';

let server: TestServer;
let world: World;

beforeAll(async () => {
	({ server, world } = await startApiServer());
}, 60_000);

afterAll(async () => {
	await server?.stop();
});

const api = (path: string, options: Parameters<typeof call>[2] = {}) => call(server, path, { key: world.keys.all, ...options });

async function countRows(table: string, where: string, replacements: unknown[]): Promise<number> {
	const [row] = await database().sequelize.query<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, {
		replacements,
		type: QueryTypes.SELECT,
	});
	return Number(row.n);
}

/** Every list total the API answers for acme equals count(*) of what the list shows. */
async function expectExactTotals(): Promise<void> {
	const org = world.acme.id;
	const courses = (await Course.findAll({ where: { organizationId: org } })).map((c) => c.id);
	const checks: Array<[path: string, table: string, where: string, replacements: unknown[]]> = [
		['/users', 'users', 'organization_id = ?', [org]],
		['/courses', 'courses', "organization_id = ? AND status = 'published'", [org]],
		['/enrollments', 'enrollments', 'organization_id = ?', [org]],
		['/certificates', 'certificates', 'organization_id = ?', [org]],
	];
	for (const role of ['student', 'instructor', 'admin', 'super_admin']) {
		checks.push([`/users?role=${role}`, 'users', 'organization_id = ? AND role = ?', [org, role]]);
	}
	for (const status of ['active', 'completed', 'withdrawn', 'expired']) {
		checks.push([`/enrollments?status=${status}`, 'enrollments', 'organization_id = ? AND status = ?', [org, status]]);
		for (const course of courses) {
			checks.push([`/enrollments?course_id=${course}&status=${status}`, 'enrollments', 'organization_id = ? AND course_id = ? AND status = ?', [org, course, status]]);
		}
	}
	for (const course of courses) {
		checks.push([`/enrollments?course_id=${course}`, 'enrollments', 'organization_id = ? AND course_id = ?', [org, course]]);
		checks.push([`/certificates?course_id=${course}`, 'certificates', 'organization_id = ? AND course_id = ?', [org, course]]);
	}
	// Not served by a counter: counted through their index, and exact all the same.
	checks.push([`/enrollments?student_id=${world.users.alice.id}`, 'enrollments', 'organization_id = ? AND student_id = ?', [org, world.users.alice.id]]);

	for (const [path, table, where, replacements] of checks) {
		const reply = await api(`/api/v1${path}${path.includes('?') ? '&' : '?'}per_page=1`);
		expect({ path, status: reply.status, total: reply.body.pagination.total }).toEqual({
			path,
			status: 200,
			total: await countRows(table, where, replacements),
		});
	}
}

it('starts exact: what the seed and fixtures wrote is counted', async () => {
	await expectExactTotals();
});

it('stays exact under concurrent creations, duplicate enrollments and transitions', async () => {
	// 30 users at once, across roles.
	const roles = ['student', 'student', 'instructor'] as const;
	const created = await Promise.all(
		Array.from({ length: 30 }, (_, i) =>
			createUser({ organization: world.acme, email: `racer${i}@acme.example`, name: `Racer ${i}`, role: roles[i % 3], password: roles[i % 3] === 'student' ? undefined : 'Racer-password-1' }).catch(
				(err: unknown) => err,
			),
		),
	);
	const students = created.filter((u): u is Awaited<ReturnType<typeof createUser>> => !(u instanceof Error) && (u as Awaited<ReturnType<typeof createUser>>).role === 'student');
	expect(students.length).toBeGreaterThan(0);

	// Each enrollment requested twice at once: one 201, one 409, counted once.
	const course = world.courses.intro.id;
	const enrolls = await Promise.all(
		students.flatMap((s) => [0, 1].map(() => api('/api/v1/enrollments', { method: 'POST', key: world.keys.writeEnrollments, body: { student_id: s.id, course_id: course } }))),
	);
	expect(enrolls.filter((r) => r.status === 201)).toHaveLength(students.length);
	expect(enrolls.filter((r) => r.status === 409)).toHaveLength(students.length);

	// Then every new enrollment changes state at once: completions (which issue certificates),
	// withdrawals and progress.
	const ids = enrolls.filter((r) => r.status === 201).map((r) => r.body.id as string);
	const changes = await Promise.all(
		ids.map((id, i) =>
			api(`/api/v1/enrollments/${id}`, {
				method: 'PATCH',
				key: world.keys.writeEnrollments,
				body: [{ status: 'completed' }, { status: 'withdrawn' }, { progress_percent: 40 }][i % 3],
			}),
		),
	);
	expect(changes.map((r) => r.status)).toEqual(ids.map(() => 200));

	await expectExactTotals();
}, 120_000);

it('a statement that writes many rows moves each counter once, and stays exact', async () => {
	const { sequelize } = database();
	const org = world.acme.id;
	const now = new Date();
	const rows = Array.from({ length: 600 }, (_, i) => ({
		id: `usr_bulk${String(i).padStart(12, '0')}`,
		organization_id: org,
		name: `Bulk ${i}`,
		email: `bulk${i}@bulk.example`,
		email_lower: `bulk${i}@bulk.example`,
		role: i % 3 === 0 ? 'instructor' : 'student',
		created_at: now,
		updated_at: now,
	}));
	const counterWrites = await writeTransaction(database(), async (transaction) => {
		const pg = sequelize.getDialect() === 'postgres';
		// PostgreSQL keeps every version of a row a transaction updates, so counters moved once per
		// row made a statement of n rows cost O(n²). The backend's statistics tell how many counter
		// writes the statements made (read before and after: they may hold earlier, unflushed counts).
		const writes = async () => {
			const [stats] = await sequelize.query<{ writes: string }>(
				"SELECT n_tup_ins + n_tup_upd AS writes FROM pg_stat_xact_user_tables WHERE relname = 'list_counts'",
				{ type: QueryTypes.SELECT, transaction },
			);
			return Number(stats.writes);
		};
		const before = pg ? await writes() : 0;
		await sequelize.getQueryInterface().bulkInsert('users', rows, { transaction });
		await sequelize.query("UPDATE users SET role = 'admin' WHERE id LIKE 'usr_bulk00000000001%'", { transaction });
		await sequelize.query("UPDATE users SET name = 'Renamed' WHERE id LIKE 'usr_bulk%'", { transaction });
		await sequelize.query("DELETE FROM users WHERE id LIKE 'usr_bulk00000000002%'", { transaction });
		return pg ? (await writes()) - before : undefined;
	});
	// Four statements; each writes each counter it moves once (a rename moves none). Row by row
	// it would have been 2 counters × (600 inserted + 110 changed × 2 + 110 deleted) = 1,860.
	if (counterWrites !== undefined) expect(counterWrites).toBeLessThanOrEqual(9);
	await expectExactTotals();
});
