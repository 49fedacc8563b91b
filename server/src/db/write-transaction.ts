import type { Sequelize, Transaction } from 'sequelize';

/**
 * A managed write transaction. On PostgreSQL, just `sequelize.transaction`. On SQLite, the
 * transactions of this process also take turns in a queue: SQLite admits one writer anyway,
 * and a BEGIN IMMEDIATE that waits on the lock sleeps inside one of libuv's four worker
 * threads; with four such waiters the writer that holds the lock gets no thread for its next
 * statement, and everyone waits out the busy timeout. Another process (the CLI next to a
 * running server) still meets the busy timeout, as before.
 */
const queues = new WeakMap<Sequelize, Promise<unknown>>();

export function writeTransaction<T>(sequelize: Sequelize, work: (transaction: Transaction) => Promise<T>): Promise<T> {
	if (sequelize.getDialect() !== 'sqlite') return sequelize.transaction(work);
	const previous = queues.get(sequelize) ?? Promise.resolve();
	const run = previous.then(() => sequelize.transaction(work));
	queues.set(
		sequelize,
		run.catch(() => undefined),
	);
	return run;
}
