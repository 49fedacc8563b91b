import type { Sequelize } from 'sequelize';

import { loadConfig, type Config } from '../config';
import { connect, migrate as applyMigrations } from '../db';
import { CliError } from './output';

/**
 * Opens the database the configuration names. Whatever goes wrong here (a directory that
 * cannot be created, a refused connection) is the operator's to fix, so it becomes one line
 * that names the variable rather than echoing the URL, which may hold a password.
 */
async function openDatabase(config: Config): Promise<Sequelize> {
	try {
		return await connect({ databaseUrl: config.databaseUrl, poolMax: 2 });
	} catch (err) {
		throw new CliError(`cannot open the database named by DATABASE_URL: ${err instanceof Error ? err.message : String(err)}`);
	}
}

/**
 * Every command that touches data reads the same configuration as the server, opens the
 * database and applies pending migrations first (unless told not to): a fresh database then
 * just works, and an up-to-date one costs a single read. `work` gets the migrations applied.
 */
export async function withDatabase<T>(
	work: (applied: string[]) => T | Promise<T>,
	{ config = loadConfig(), migrate = true }: { config?: Config; migrate?: boolean } = {},
): Promise<T> {
	const sequelize = await openDatabase(config);
	try {
		const applied = migrate ? await applyMigrations(sequelize) : [];
		return await work(applied);
	} finally {
		await sequelize.close();
	}
}
