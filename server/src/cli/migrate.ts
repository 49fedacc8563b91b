import type { Command } from 'commander';

import { loadConfig } from '../config';
import { migrate } from '../db';
import { openDatabase } from './context';
import { printLines } from './output';

export function registerMigrate(program: Command): void {
	program
		.command('migrate')
		.description('apply pending database migrations')
		.action(async () => {
			const config = loadConfig();
			const sequelize = await openDatabase(config);
			try {
				const applied = await migrate(sequelize);
				printLines(applied.length === 0 ? 'The database is up to date.' : `Applied ${applied.join(', ')}.`);
			} finally {
				await sequelize.close();
			}
		});
}
