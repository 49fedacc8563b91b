import type { Sequelize } from 'sequelize';

import { openDatabase, type DatabaseOptions } from './database';
import { initModels, Organization } from './models';
import { readsOf, type Reads } from './reads';

export { DatabaseFileError, dialectOf, sqliteFile } from './database';
export { migrate, MIGRATIONS_TABLE } from './migrate';
export * from './models';

/**
 * Opens the database and binds the models to it. Sequelize binds a model class to one instance
 * for the whole process (Model.init), so a process has one database: the one connect() opened
 * last. Call it once per process.
 */
export async function connect(options: DatabaseOptions): Promise<Sequelize> {
	const sequelize = await openDatabase(options);
	initModels(sequelize);
	return sequelize;
}

/**
 * The database the models are bound to. The components reach it through their models; what
 * is not a model (the readiness probe, the session store) takes it from here, so that nothing
 * can be handed a database other than the one every model uses.
 */
export function processDatabase(): Sequelize {
	const sequelize = Organization.sequelize;
	if (!sequelize) throw new Error('connect() has not run: the models are bound to no database');
	return sequelize;
}

/** The read handle of the process's database (db/reads.ts): prepared statements for the per-request reads. */
export function processReads(): Reads {
	return readsOf(processDatabase());
}
