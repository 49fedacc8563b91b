import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Sequelize, Transaction, type Options } from 'sequelize';

import { sqliteDriver } from './sqlite-driver';

export type Dialect = 'sqlite' | 'postgres';

export function dialectOf(databaseUrl: string): Dialect {
	return databaseUrl.startsWith('sqlite:') ? 'sqlite' : 'postgres';
}

/** `sqlite:./data/lms.sqlite`, `sqlite:/abs/path.sqlite` or `sqlite::memory:` → a file path. */
export function sqliteFile(databaseUrl: string): string {
	const rest = databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
	return rest === ':memory:' ? rest : resolve(rest);
}

export interface DatabaseOptions {
	databaseUrl: string;
	poolMax?: number;
}

/**
 * One Sequelize instance per process. Dialect differences live here and nowhere else:
 * SQLite gets WAL, a busy timeout and IMMEDIATE write transactions (a DEFERRED transaction
 * that reads then writes fails at once with SQLITE_BUSY under concurrency).
 */
export async function openDatabase({ databaseUrl, poolMax = 10 }: DatabaseOptions): Promise<Sequelize> {
	const common: Options = {
		logging: false,
		define: { underscored: true },
	};
	let sequelize: Sequelize;
	if (dialectOf(databaseUrl) === 'sqlite') {
		const storage = sqliteFile(databaseUrl);
		if (storage !== ':memory:') mkdirSync(dirname(storage), { recursive: true });
		sequelize = new Sequelize({
			...common,
			dialect: 'sqlite',
			storage,
			// SQLite only: PostgreSQL has row locks and no BEGIN IMMEDIATE (Sequelize ignores it there).
			transactionType: Transaction.TYPES.IMMEDIATE,
			dialectModule: sqliteDriver,
			retry: { max: 10, match: [/SQLITE_BUSY/] },
		});
		await sequelize.query('PRAGMA journal_mode = WAL');
		await sequelize.query('PRAGMA synchronous = NORMAL');
	} else {
		sequelize = new Sequelize(databaseUrl, {
			...common,
			dialect: 'postgres',
			pool: { max: poolMax, min: 0, idle: 10_000, acquire: 30_000 },
		});
		await sequelize.authenticate();
	}
	return sequelize;
}
