import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { Command, Help, type Option } from 'commander';

import { registerDemo } from './demo';
import { registerEnrollments } from './enrollments';
import { registerGroups } from './groups';
import { registerKeys } from './keys';
import { registerMigrate } from './migrate';
import { registerOrgs } from './orgs';
import { registerSeed } from './seed';
import { registerStart } from './start';
import { registerUsers } from './users';
import { registerWebhooks } from './webhooks';

/** The server package's version: package.json sits one folder above both src/ and dist/. */
function serverVersion(): string {
	return (JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
}

/** SPEC §8's command line, one file per command group. */
export function buildProgram(): Command {
	const program = new Command('lms-server')
		.description('The LMS reference server and its operator console. Configuration comes from the environment.')
		.version(serverVersion(), '-V, --version', 'print the version')
		// Help marks the options a command cannot run without (subcommands inherit this).
		.configureHelp({ optionDescription: (option: Option) => `${new Help().optionDescription(option)}${option.mandatory ? ' (required)' : ''}` })
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
	registerGroups(program);
	registerDemo(program);
	registerWebhooks(program);
	return program;
}
