import { loadConfig, type Config } from '../config';
import { connect, DatabaseFileError, type Database, dialectOf, migrate as applyMigrations, MIGRATIONS_TABLE, sqliteFile } from '../db';
import { CliError } from './output';
import { APPLIED_MIGRATIONS } from './queries';

/**
 * Opens the database the configuration names. Whatever goes wrong here (a directory that
 * cannot be created, a refused connection) is the operator's to fix, so it becomes one line
 * that names the variable rather than echoing the URL, which may hold a password.
 */
async function openDatabase(config: Config, create: boolean): Promise<Database> {
	try {
		return await connect({ databaseUrl: config.databaseUrl, poolMax: 2, create });
	} catch (err) {
		if (err instanceof DatabaseFileError) throw new CliError(err.message);
		throw new CliError(`cannot open the database named by DATABASE_URL: ${err instanceof Error ? err.message : String(err)}`);
	}
}

/**
 * A database no migration has run on was made by mistake (a typo in DATABASE_URL, another working
 * directory, a fresh PostgreSQL database): only start, migrate and seed may set one up; every other
 * command says where it looked instead of answering "no organization" from an empty schema.
 */
async function refuseEmpty(db: Database, config: Config): Promise<void> {
	if (await db.sequelize.getQueryInterface().tableExists(MIGRATIONS_TABLE)) {
		const [row] = await db.read<{ n: number | string }>(APPLIED_MIGRATIONS);
		if (Number(row?.n) > 0) return;
	}
	const where = dialectOf(config.databaseUrl) === 'sqlite' ? sqliteFile(config.databaseUrl) : 'the PostgreSQL database DATABASE_URL names';
	throw new CliError(`the database at ${where} is empty: check DATABASE_URL and the working directory, or set it up with \`lms-server migrate\` (or \`seed --demo\`).`);
}

/**
 * Every command that touches data reads the same configuration as the server, opens the
 * database and applies pending migrations first (unless told not to): an up-to-date database
 * costs a single read. Only `create` commands (start, migrate, seed) may create a database or
 * set up an empty one. `work` gets the migrations applied.
 */
export async function withDatabase<T>(
	work: (applied: string[]) => T | Promise<T>,
	{ config = loadConfig(), migrate = true, create = false }: { config?: Config; migrate?: boolean; create?: boolean } = {},
): Promise<T> {
	const db = await openDatabase(config, create);
	try {
		if (!create) await refuseEmpty(db, config);
		const applied = migrate ? await applyMigrations(db) : [];
		return await work(applied);
	} finally {
		await db.close();
	}
}
