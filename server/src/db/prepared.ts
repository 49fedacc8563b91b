import type { Sequelize } from 'sequelize';
import type sqlite3 from 'sqlite3';

import type { Dialect } from './database';
import { statementName } from './pg-driver';

/**
 * Database.read(): reads outside a transaction, run as prepared statements on a connection of
 * Sequelize's own pool (`sequelize.connectionManager.getConnection`/`releaseConnection`, public in
 * Sequelize's typings). Through `sequelize.query` every statement is parsed and planned again,
 * and on SQLite run in the driver's serialized mode, where the driver's thread and the event loop
 * take turns: a list request (key, total, page) cost ≈ 420 µs more CPU and half the throughput
 * (docs/benchmarks.md, API overhead). Kept prepared:
 *
 * - SQLite: one `sqlite3` Statement per connection and SQL text (a statement belongs to the
 *   connection that prepared it, whichever one the pool hands out); `$n` becomes `?n` (in SQLite
 *   `$1` is a parameter *name*, bound by order of first appearance, not by number). Statements
 *   are finalized before the connections close.
 * - PostgreSQL: a named statement per SQL text (pg-driver.ts statementName); `pg` prepares it
 *   once on each pooled connection that runs it.
 */
export class PreparedReads {
	private readonly statements = new Map<sqlite3.Database, Map<string, Promise<sqlite3.Statement>>>();

	constructor(
		private readonly sequelize: Sequelize,
		private readonly dialect: Dialect,
	) {}

	async rows<R>(sql: string, params: readonly unknown[]): Promise<R[]> {
		const manager = this.sequelize.connectionManager;
		const connection = await manager.getConnection({ type: 'read' });
		try {
			return this.dialect === 'sqlite'
				? await this.sqliteRows<R>(connection as sqlite3.Database, sql, params)
				: await this.postgresRows<R>(connection as PgClient, sql, params);
		} finally {
			manager.releaseConnection(connection);
		}
	}

	/** Finalizes the SQLite statements: a connection with open statements cannot close. */
	async close(): Promise<void> {
		const statements = [...this.statements.values()].flatMap((prepared) => [...prepared.values()]);
		this.statements.clear();
		await Promise.all(
			statements.map(async (prepared) => {
				const statement = await prepared.catch(() => undefined);
				await new Promise<void>((resolve) => (statement ? statement.finalize(() => resolve()) : resolve()));
			}),
		);
	}

	private async sqliteRows<R>(connection: sqlite3.Database, sql: string, params: readonly unknown[]): Promise<R[]> {
		return all<R>(await this.sqliteStatement(connection, sql), params);
	}

	private sqliteStatement(connection: sqlite3.Database, sql: string): Promise<sqlite3.Statement> {
		let statements = this.statements.get(connection);
		if (statements === undefined) this.statements.set(connection, (statements = new Map<string, Promise<sqlite3.Statement>>()));
		let prepared = statements.get(sql);
		if (prepared === undefined) {
			prepared = prepare(connection, sql);
			// A statement that failed to prepare (bad SQL) is not kept: the next call reports it again.
			prepared.catch(() => statements.delete(sql));
			statements.set(sql, prepared);
		}
		return prepared;
	}

	private async postgresRows<R>(client: PgClient, sql: string, params: readonly unknown[]): Promise<R[]> {
		const result = await client.query({ name: statementName(sql), text: sql, values: params as unknown[] });
		return result.rows as R[];
	}
}

/** `$n` becomes `?n`: in SQLite `$1` is a parameter *name*, bound by order of first appearance, not by number. */
function prepare(connection: sqlite3.Database, sql: string): Promise<sqlite3.Statement> {
	return new Promise<sqlite3.Statement>((resolve, reject) => {
		const statement = connection.prepare(sql.replace(/\$(\d+)/g, '?$1'), (error: Error | null) => (error ? reject(error) : resolve(statement)));
	});
}

function all<R>(statement: sqlite3.Statement, params: readonly unknown[]): Promise<R[]> {
	return new Promise<R[]>((resolve, reject) => {
		statement.all(params as unknown[], (error: Error | null, rows: R[]) => (error ? reject(error) : resolve(rows)));
	});
}

/** What this file uses of a `pg` client (Sequelize's pooled PostgreSQL connection). */
interface PgClient {
	query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}
