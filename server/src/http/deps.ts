import type { Logger } from 'pino';

import type { Config } from '../config';
import type { Database } from '../db';

/**
 * What the web layer is built from; created once by the server (or a test) and passed down.
 * `db` is the database connect() opened, the one every model is bound to (db/index.ts).
 */
export interface AppDeps {
	config: Config;
	logger: Logger;
	db: Database;
}
