import type { QueryInterface, Sequelize } from 'sequelize';
import { SequelizeStorage, Umzug, type RunnableMigration } from 'umzug';

import * as initial from './migrations/0001-initial';
import * as sessions from './migrations/0002-sessions';
import * as postgresIdOrder from './migrations/0003-postgres-id-order';

type Migration = RunnableMigration<QueryInterface>;

/**
 * Versioned migrations, listed explicitly so the compiled server needs no file globbing and
 * the order is plain to read. Add new ones at the end; never edit one that has shipped.
 */
const MIGRATIONS: Array<[string, Pick<Migration, 'up' | 'down'>]> = [
	['0001-initial', initial],
	['0002-sessions', sessions],
	['0003-postgres-id-order', postgresIdOrder],
];

export function migrator(sequelize: Sequelize): Umzug<QueryInterface> {
	return new Umzug({
		migrations: MIGRATIONS.map(([name, m]) => ({ name, up: m.up, down: m.down })),
		context: sequelize.getQueryInterface(),
		storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
		logger: undefined,
	});
}

/** Applies pending migrations; returns the names applied. */
export async function migrate(sequelize: Sequelize): Promise<string[]> {
	const applied = await migrator(sequelize).up();
	return applied.map((m) => m.name);
}
