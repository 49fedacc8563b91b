import { connect, migrate, Organization, User, type Database } from '../../server/src/db';
import { createTestDatabase, testDialect, type TestDatabase } from '../helpers/database';

/**
 * Timestamps cross raw SQL as ISO 8601 text (db/database.ts): a column read through isoText()
 * is the instant the model wrote, and a parameter bound through storedTime() compares with
 * model-written values as instants, at millisecond resolution. Run under both databases.
 */
describe(`timestamps in raw SQL (${testDialect()})`, () => {
	let database: TestDatabase;
	let db: Database;
	let organizationId: string;
	const instants = [
		new Date(0),
		new Date('2024-02-29T23:59:59.999Z'),
		new Date('2026-05-01T09:30:00.123Z'),
		new Date('2026-05-01T09:30:00.124Z'),
		new Date('2026-12-31T00:00:00.000Z'),
		new Date('9999-12-31T23:59:59.999Z'),
	];

	beforeAll(async () => {
		database = await createTestDatabase();
		db = await connect({ databaseUrl: database.databaseUrl });
		await migrate(db);
		organizationId = (await Organization.create({ name: 'Time', slug: 'time', plan: 'enterprise' })).id;
		for (const [n, createdAt] of instants.entries()) {
			await User.create({ organizationId, name: `T${n}`, email: `t${n}@time.example`, role: 'student', passwordHash: null, createdAt });
		}
	});
	afterAll(async () => {
		await db?.close();
		await database?.remove();
	});

	test('a model-written timestamp reads back as the same instant in ISO text', async () => {
		const rows = await db.rows<{ at: string }>(`SELECT ${db.isoText('created_at')} AS at FROM users WHERE organization_id = $1 ORDER BY created_at`, [organizationId]);
		expect(rows.map((r) => r.at)).toEqual(instants.map((d) => d.toISOString()));
	});

	test('an ISO parameter compares with stored timestamps as an instant, to the millisecond', async () => {
		for (const [n, bound] of instants.entries()) {
			const before = await db.rows<{ name: string }>(
				`SELECT name FROM users WHERE organization_id = $1 AND created_at < ${db.storedTime('$2')} ORDER BY created_at`,
				[organizationId, bound.toISOString()],
			);
			expect(before.map((r) => r.name)).toEqual(instants.slice(0, n).map((_, i) => `T${i}`));
		}
	});

	test('a timestamp written by raw SQL reads back through the model as the same instant', async () => {
		const at = new Date('2026-07-04T12:34:56.789Z');
		await db.run(`UPDATE users SET updated_at = ${db.storedTime('$1')} WHERE organization_id = $2 AND name = 'T0'`, [at.toISOString(), organizationId]);
		const user = await User.findOne({ where: { organizationId, name: 'T0' } });
		expect(user!.updatedAt.toISOString()).toBe(at.toISOString());
	});
});
