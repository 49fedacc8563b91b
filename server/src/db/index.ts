import { Database, openDatabase, type DatabaseOptions } from './database';
import { setDatabase } from './current';
import { initModels } from './models';

export { database } from './current';
export { Database, DatabaseFileError, dialectOf, sqliteFile } from './database';
export { migrate, MIGRATIONS_TABLE } from './migrate';
export * from './models';

/**
 * Opens the database and binds the models to it. Sequelize binds a model class to one instance
 * for the whole process (Model.init), so a process has one database: the one connect() opened
 * last. Call it once per process.
 */
export async function connect(options: DatabaseOptions): Promise<Database> {
	const db = await openDatabase(options);
	initModels(db.sequelize);
	setDatabase(db);
	return db;
}
