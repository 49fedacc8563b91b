import type { Sequelize } from 'sequelize';

import { openDatabase, type DatabaseOptions } from './database';
import { initModels } from './models';

export { dialectOf, sqliteFile } from './database';
export { migrate } from './migrate';
export * from './models';

/** Opens the database and binds the models to it. Call once per process. */
export async function connect(options: DatabaseOptions): Promise<Sequelize> {
	const sequelize = await openDatabase(options);
	initModels(sequelize);
	return sequelize;
}
