import { Database, openDatabase, type DatabaseOptions } from './database';
import { initModels } from './models';

export { Database, DatabaseFileError, dialectOf, sqliteFile } from './database';
export { migrate, MIGRATIONS_TABLE } from './migrate';
export * from './models';

let opened: Database | undefined;

/**
 * Opens the database and binds the models to it. Sequelize binds a model class to one instance
 * for the whole process (Model.init), so a process has one database: the one connect() opened
 * last. Call it once per process.
 */
export async function connect(options: DatabaseOptions): Promise<Database> {
	const db = await openDatabase(options);
	initModels(db.sequelize);
	opened = db;
	return db;
}

/**
 * The database connect() opened, which every model is bound to. The server hands it to what it
 * starts (the app, the webhook worker); a component's operation, called from a route, a CLI
 * command or another operation, takes it from here, so that nothing can pair a model of one
 * database with SQL run on another.
 */
export function database(): Database {
	if (!opened) throw new Error('connect() has not run: the models are bound to no database');
	return opened;
}
