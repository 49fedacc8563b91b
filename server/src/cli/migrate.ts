import type { Command } from 'commander';

import { loadConfig } from '../config';
import { sealWebhookSecrets } from '../webhooks/secrets';
import { withDatabase } from './context';
import { CliError, printLines } from './output';

export function registerMigrate(program: Command): void {
	program
		.command('migrate')
		.description('apply pending database migrations')
		.action(() => {
			const config = loadConfig();
			return withDatabase(
				async (applied) => {
					// Webhook signing secrets: plaintext ones (before 0015) and a previous SEALING_SECRET's, sealed under the current one.
					const { sealed, unreadable } = await sealWebhookSecrets(config.webhooks);
					printLines(
						applied.length === 0 ? 'The database is up to date.' : `Applied ${applied.join(', ')}.`,
						...(sealed > 0 ? [`Sealed ${sealed} webhook signing secret(s) under the current SEALING_SECRET.`] : []),
					);
					if (unreadable > 0) {
						throw new CliError(
							`${unreadable} webhook signing secret(s) were sealed under a secret this server was not given: set SEALING_SECRET_PREVIOUS to it and run migrate again.`,
						);
					}
				},
				{ config, create: true },
			);
		});
}
