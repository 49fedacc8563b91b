import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';

import type { Config } from '../config';

/** What the web layer is built from; created once by the server (or a test) and passed down. */
export interface AppDeps {
	config: Config;
	sequelize: Sequelize;
	logger: Logger;
}
