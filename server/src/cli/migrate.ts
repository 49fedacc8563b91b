import type { Command } from 'commander';

import { withDatabase } from './context';
import { printLines } from './output';

export function registerMigrate(program: Command): void {
	program
		.command('migrate')
		.description('apply pending database migrations')
		.action(() =>
			withDatabase((applied) =>
				printLines(applied.length === 0 ? 'The database is up to date.' : `Applied ${applied.join(', ')}.`), { create: true },
			),
		);
}
