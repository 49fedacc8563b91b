import type { Logger } from 'pino';

import type { Config } from '../config';

/**
 * What the web layer is built from; created once by the server (or a test) and passed down.
 * No database handle: the models are bound to the process's one database by db/connect(), and
 * everything reads and writes through them (or db/processDatabase()), so a handle passed here
 * would only pretend that another database could be chosen. One process, one database.
 */
export interface AppDeps {
	config: Config;
	logger: Logger;
}
