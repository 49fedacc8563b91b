import type { Database } from './database';

/**
 * The database connect() (db/index.ts) opened. Kept apart from db/index.ts, which imports every
 * model: a model's hooks (users/model.ts → search/words.ts) reach the database through this file,
 * and through db/index.ts they would close an import circle across folders.
 */
let opened: Database | undefined;

export function setDatabase(db: Database): void {
	opened = db;
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
