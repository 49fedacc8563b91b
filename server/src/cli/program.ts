import { Command } from 'commander';

import { registerDemo } from './demo';
import { registerEnrollments } from './enrollments';
import { registerKeys } from './keys';
import { registerMigrate } from './migrate';
import { registerOrgs } from './orgs';
import { registerSeed } from './seed';
import { registerStart } from './start';
import { registerUsers } from './users';
import { registerWebhooks } from './webhooks';

/** SPEC §8's command line, one file per command group. */
export function buildProgram(): Command {
	const program = new Command('lms-server')
		.description('The LMS reference server and its operator console. Configuration comes from the environment.')
		// Usage errors, like every other error, are one line on stderr.
		.configureOutput({ outputError: (message, write) => write(`lms-server: ${message.replace(/^error: /, '')}`) })
		// Commands made with .command() inherit both settings, so a usage error anywhere
		// reaches our one error path.
		.exitOverride();
	registerStart(program);
	registerMigrate(program);
	registerSeed(program);
	registerOrgs(program);
	registerUsers(program);
	registerKeys(program);
	registerEnrollments(program);
	registerDemo(program);
	registerWebhooks(program);
	return program;
}
