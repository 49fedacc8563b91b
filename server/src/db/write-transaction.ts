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
	/** What this level defers to the commit (atCommit), by name: handed to the level outside when this one ends well, dropped with it when it fails. */
	deferred: Map<string, Deferred>;
}

interface Deferred {
	items: unknown[];
	write: (transaction: Transaction, items: unknown[]) => Promise<void>;
}

/** The open levels by their Transaction (a savepoint has a Transaction of its own), for atCommit. */
const levels = new WeakMap<Transaction, Level>();
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
		const level: Level = { db, transaction, open: true, tail: Promise.resolve(), deferred: new Map() };
		levels.set(transaction, level);
		return inside.run(level, async () => {
			try {
				const result = await work(transaction);
				if (parent) handOn(level, parent);
				// Only the outermost level commits: what was deferred is written just before.
				else for (const { items, write } of level.deferred.values()) await write(transaction, items);
				return result;
			} finally {
				level.open = false;
			}
		});
	});
}

/** A savepoint that ended well: what it deferred is the enclosing level's now (and commits or rolls back with it). */
function handOn(level: Level, parent: Level): void {
	for (const [name, { items, write }] of level.deferred) {
		const into = parent.deferred.get(name);
		if (into) into.items.push(...items);
		else parent.deferred.set(name, { items, write });
	}
}

/**
 * Defers `items` to the end of the write transaction: right before its COMMIT, `write` is called
 * once per name with every item deferred under that name, in the order they came. What must hold
 * a lock only for the commit (events' numbering, events/record.ts) is done there, where the
 * transaction waits for nothing else, so that lock cannot close a deadlock with rows the
 * transaction wrote before. Items deferred inside a savepoint that fails are dropped with it.
 */
export function atCommit<T>(transaction: Transaction, name: string, items: readonly T[], write: (transaction: Transaction, items: T[]) => Promise<void>): void {
	const level = levels.get(transaction);
	if (!level?.open) throw new Error(`${name}: not inside an open write transaction (db/write-transaction.ts)`);
	const deferred = level.deferred.get(name);
	if (deferred) deferred.items.push(...items);
	else level.deferred.set(name, { items: [...items], write: write as Deferred['write'] });
}
