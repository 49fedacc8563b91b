import { AsyncLocalStorage } from 'node:async_hooks';

import type { Transaction } from 'sequelize';

import type { Database } from './database';

/**
 * The one way to a write transaction: lint bans `.transaction(` outside db/.
 *
 * On SQLite the process's write transactions take turns in a promise queue. SQLite admits one
 * writer anyway, and a BEGIN IMMEDIATE that waits on the lock sleeps inside one of libuv's four
 * worker threads; with four such waiters the writer that holds the lock gets no thread for its
 * next statement, and everyone waits out the busy timeout. Waiting in a queue costs no thread.
 * Another process (the CLI next to a running server) still meets the busy timeout, as it should.
 *
 * A write opened inside another joins it as a savepoint rather than failing: queued, it would
 * wait for the very transaction it runs in (a deadlock on SQLite), and on PostgreSQL it would
 * take a second connection and commit on its own. Joining lets an operation (createUser,
 * enrollStudent) be called alone or as one step of a larger write with the same signature; the
 * savepoint keeps it all-or-nothing like a transaction of its own: if it throws, its statements
 * are undone and the outer transaction can go on (PostgreSQL would otherwise refuse every later
 * statement). It commits only with the outer one. "Inside" follows the async context, so a task
 * left running after its transaction ended gets a transaction of its own. Writes nested side by
 * side take turns too, since savepoints on one connection must nest, not interleave.
 */
interface Level {
	db: Database;
	transaction: Transaction;
	open: boolean;
	tail: Promise<unknown>;
}

const inside = new AsyncLocalStorage<Level>();
const queues = new WeakMap<Database, Promise<unknown>>();

export function writeTransaction<T>(db: Database, work: (transaction: Transaction) => Promise<T>): Promise<T> {
	const outer = inside.getStore();
	if (outer?.open && outer.db === db) {
		const run = outer.tail.then(() => (outer.open ? begin(db, work, outer.transaction) : writeTransaction(db, work)));
		outer.tail = run.catch(() => undefined);
		return run;
	}
	if (db.dialect !== 'sqlite') return begin(db, work);
	const run = (queues.get(db) ?? Promise.resolve()).then(() => begin(db, work));
	queues.set(
		db,
		run.catch(() => undefined),
	);
	return run;
}

function begin<T>(db: Database, work: (transaction: Transaction) => Promise<T>, parent?: Transaction): Promise<T> {
	return db.sequelize.transaction({ transaction: parent }, (transaction) => {
		const level: Level = { db, transaction, open: true, tail: Promise.resolve() };
		return inside.run(level, async () => {
			try {
				return await work(transaction);
			} finally {
				level.open = false;
			}
		});
	});
}
