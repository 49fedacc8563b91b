import type { Sequelize } from 'sequelize';

import { loadConfig, type Config } from '../config';
import { connect, migrate } from '../db';
import { CliError } from './output';

/**
 * Opens the database the configuration names. Whatever goes wrong here (a directory that
 * cannot be created, a refused connection) is the operator's to fix, so it becomes one line
 * that names the variable rather than echoing the URL, which may hold a password.
 */
export async function openDatabase(config: Config): Promise<Sequelize> {
	try {
		return await connect({ databaseUrl: config.databaseUrl, poolMax: 2 });
	} catch (err) {
		throw new CliError(`cannot open the database named by DATABASE_URL: ${err instanceof Error ? err.message : String(err)}`);
	}
}

/**
 * Every command that touches data reads the same configuration as the server, opens the
 * database and applies pending migrations first: a fresh database then just works, and an
 * up-to-date one costs a single read.
 */
export async function withDatabase<T>(work: (config: Config, sequelize: Sequelize) => Promise<T>): Promise<T> {
	const config = loadConfig();
	const sequelize = await openDatabase(config);
	try {
		await migrate(sequelize);
		return await work(config, sequelize);
	} finally {
		await sequelize.close();
	}
}
