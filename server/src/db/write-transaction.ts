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
	/** The outermost transaction's last steps (beforeCommit), shared by every level inside it. */
	last: Map<string, (transaction: Transaction) => Promise<void>>;
}

const inside = new AsyncLocalStorage<Level>();
const queues = new WeakMap<Database, Promise<unknown>>();

export function writeTransaction<T>(db: Database, work: (transaction: Transaction) => Promise<T>): Promise<T> {
	const outer = inside.getStore();
	if (outer?.open && outer.db === db) {
		const run = outer.tail.then(() => (outer.open ? begin(db, work, outer) : writeTransaction(db, work)));
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

function begin<T>(db: Database, work: (transaction: Transaction) => Promise<T>, parent?: Level): Promise<T> {
	return db.sequelize.transaction({ transaction: parent?.transaction }, (transaction) => {
		const level: Level = { db, transaction, open: true, tail: Promise.resolve(), last: parent?.last ?? new Map<string, (transaction: Transaction) => Promise<void>>() };
		return inside.run(level, async () => {
			try {
				const result = await work(transaction);
				// Only the outermost level commits: its last steps run just before.
				if (!parent) for (const step of level.last.values()) await step(transaction);
				return result;
			} finally {
				level.open = false;
			}
		});
	});
}

/**
 * Runs `step` once (per `name`) as the last statements of the outermost write transaction this
 * call runs in, right before its COMMIT: what must hold a lock only for the commit (events'
 * numbering, events/record.ts) does it there, where the transaction waits for nothing else, so
 * that lock cannot close a deadlock with the rows the transaction wrote before.
 */
export function beforeCommit(name: string, step: (transaction: Transaction) => Promise<void>): void {
	const level = inside.getStore();
	if (!level?.open) throw new Error('beforeCommit outside a write transaction');
	if (!level.last.has(name)) level.last.set(name, step);
}
