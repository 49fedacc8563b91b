import type { Transaction } from 'sequelize';

import { openDatabase, type Database } from '../../server/src/db/database';
import { atCommit, writeTransaction } from '../../server/src/db/write-transaction';
import { createTestDatabase, testDialect, type TestDatabase } from '../helpers/database';

/**
 * writeTransaction is the one way to a write transaction (db/write-transaction.ts). A write
 * opened inside another used to hang forever on SQLite (it queued behind the transaction it ran
 * in) and commit on its own on PostgreSQL (a second connection). Now it joins the outer one, as
 * a savepoint, the same on both databases: run this file under `npm test` and
 * `npm run test:postgres`. Every call is bounded, so a hang is a failure that names itself.
 */
const DEADLINE_MS = 10_000;

async function within<T>(work: Promise<T>, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const hung = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`${what} did not finish within ${DEADLINE_MS} ms: a write transaction hangs`)), DEADLINE_MS);
	});
	try {
		return await Promise.race([work, hung]);
	} finally {
		clearTimeout(timer);
	}
}

describe(`write transactions (${testDialect()})`, () => {
	let database: TestDatabase;
	let db: Database;

	const insert = (id: string, transaction: Transaction) => db.sequelize.query('INSERT INTO probe (id) VALUES (:id)', { replacements: { id }, transaction });
	async function ids(transaction?: Transaction): Promise<string[]> {
		const [rows] = await db.sequelize.query('SELECT id FROM probe ORDER BY id', { transaction });
		return (rows as { id: string }[]).map((r) => r.id);
	}

	beforeAll(async () => {
		database = await createTestDatabase();
		db = await openDatabase({ databaseUrl: database.databaseUrl, poolMax: 5 });
		await db.sequelize.query('CREATE TABLE probe (id VARCHAR(40) PRIMARY KEY)');
	});
	beforeEach(() => db.sequelize.query('DELETE FROM probe'));
	afterAll(async () => {
		await db?.close();
		await database?.remove();
	});

	test('a write inside a write joins it: it sees the outer rows, and commits with it', async () => {
		const seenInside = await within(
			writeTransaction(db, async (outer) => {
				await insert('outer', outer);
				return writeTransaction(db, async (inner) => {
					await insert('inner', inner);
					return ids(inner);
				});
			}),
			'a nested write',
		);
		expect(seenInside).toEqual(['inner', 'outer']);
		expect(await ids()).toEqual(['inner', 'outer']);
	});

	test('an inner write that throws is undone alone; the outer one goes on and commits', async () => {
		await within(
			writeTransaction(db, async (outer) => {
				await insert('before', outer);
				await expect(
					writeTransaction(db, async (inner) => {
						await insert('undone', inner);
						await insert('before', inner); // a unique violation: PostgreSQL aborts up to the savepoint only
					}),
				).rejects.toThrow();
				await insert('after', outer);
			}),
			'a write after a failed nested write',
		);
		expect(await ids()).toEqual(['after', 'before']);
	});

	test('an outer write that throws undoes the inner one too', async () => {
		await expect(
			within(
				writeTransaction(db, async (outer) => {
					await writeTransaction(db, (inner) => insert('inner', inner));
					await insert('outer', outer);
					throw new Error('changed my mind');
				}),
				'a failing outer write',
			),
		).rejects.toThrow('changed my mind');
		expect(await ids()).toEqual([]);
	});

	test('what a write defers to its commit is written once, last, with what its savepoints deferred; a failed savepoint’s is dropped', async () => {
		const calls: string[][] = [];
		const defer = (transaction: Transaction, item: string) =>
			atCommit(transaction, 'probe', [item], async (last, items) => {
				calls.push(items);
				for (const id of items) await insert(id, last);
			});
		await within(
			writeTransaction(db, async (outer) => {
				defer(outer, 'first');
				await writeTransaction(db, async (inner) => {
					defer(inner, 'kept');
					// Nothing deferred is written before the commit: the savepoint sees no row yet.
					expect(await ids(inner)).toEqual([]);
				});
				await expect(
					writeTransaction(db, (inner) => {
						defer(inner, 'dropped');
						return Promise.reject(new Error('this savepoint fails'));
					}),
				).rejects.toThrow('this savepoint fails');
				defer(outer, 'last');
				await insert('plain', outer);
			}),
			'deferred writes',
		);
		expect(calls).toEqual([['first', 'kept', 'last']]);
		expect(await ids()).toEqual(['first', 'kept', 'last', 'plain']);
		// Deferring outside a write transaction is a mistake that names itself.
		const ended = await writeTransaction(db, (t) => Promise.resolve(t));
		expect(() => defer(ended, 'late')).toThrow(/not inside an open write transaction/);
	});

	test('writes nested side by side take turns inside the outer one, and nest deeper without waiting on themselves', async () => {
		await within(
			writeTransaction(db, () =>
				Promise.all(
					['a', 'b', 'c'].map((id) =>
						writeTransaction(db, async (t) => {
							await insert(id, t);
							await writeTransaction(db, (deeper) => insert(`${id}2`, deeper));
						}),
					),
				),
			),
			'nested writes side by side',
		);
		expect(await ids()).toEqual(['a', 'a2', 'b', 'b2', 'c', 'c2']);
	});

	test('a write started by a task the transaction left behind runs in a transaction of its own, after the first commits', async () => {
		let release!: () => void;
		const gate = new Promise<void>((resolve) => (release = resolve));
		let detached!: Promise<string[]>;
		await within(
			writeTransaction(db, async (outer) => {
				await insert('first', outer);
				// Started inside, run after the transaction has ended: it must not join a finished one.
				detached = gate.then(() =>
					writeTransaction(db, async (own) => {
						await insert('later', own);
						return ids(own);
					}),
				);
			}),
			'the first write',
		);
		release();
		expect(await within(detached, 'the detached write')).toEqual(['first', 'later']);
		expect(await ids()).toEqual(['first', 'later']);
	});

	test('concurrent writes, each with a nested write, all commit', async () => {
		const count = 20;
		await within(
			Promise.all(
				Array.from({ length: count }, (_, n) =>
					writeTransaction(db, async (outer) => {
						await insert(`o${n}`, outer);
						await writeTransaction(db, (inner) => insert(`i${n}`, inner));
					}),
				),
			),
			'concurrent nested writes',
		);
		expect(await ids()).toHaveLength(2 * count);
	});
});
