import { CommanderError } from 'commander';
import { ConnectionError } from 'sequelize';

import { RuleError } from '../common/rule-error';
import { ConfigError } from '../config';
import { DatabaseFileError } from '../db/database';
import { escapeControlCharacters } from '../common/text';
import { scrubSecrets } from '../http/logging';
import { CliError, UsageError } from './output';

const USAGE_EXIT = 2;
const FAILURE_EXIT = 1;

/**
 * A rule broken by a value given on the command line alone, whatever the database holds: a
 * malformed e-mail, label, scope list, plan, role, expiry, URL, event type. The other rules are
 * about the state (not found, taken, plan, a transition) or about what was typed at a prompt or
 * piped in (a weak password: never an option) and are runtime failures.
 */
function badValue(err: RuleError): boolean {
	return (err.code.startsWith('invalid_') && err.code !== 'invalid_transition') || ['unknown_event', 'too_many_members', 'role_not_allowed'].includes(err.code);
}

/**
 * Turns whatever a command threw into one line on stderr and an exit status: 2 for a command
 * line no database would accept (commander's usage errors, UsageError, a rule about a value), 1
 * for everything else. Operator mistakes are expected and get their own sentence; only a bug
 * shows a stack, and only when LOG_LEVEL asks for it.
 */
export function reportError(err: unknown): number {
	if (err instanceof CommanderError) {
		// Commander has already printed its message (or the help text).
		return ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(err.code)
			? err.exitCode
			: USAGE_EXIT;
	}
	let line: string;
	let stack = '';
	if (err instanceof ConfigError) line = `invalid configuration: ${err.message}`;
	// The same rules as the API (e.g. an invalid enrollment transition), in the rule's own words.
	else if (err instanceof RuleError || err instanceof CliError || err instanceof DatabaseFileError) line = err.message;
	// The URL may hold a password, so name the variable rather than print it.
	else if (err instanceof ConnectionError) line = `lost the database named by DATABASE_URL: ${err.message}`;
	else {
		line = `unexpected error: ${err instanceof Error ? err.message : String(err)}`;
		if (['debug', 'trace'].includes(process.env.LOG_LEVEL ?? '') && err instanceof Error && err.stack) {
			stack = `\n${err.stack}`;
		}
	}
	// Messages may quote what is stored (a key's label): never let it drive the terminal.
	line = escapeControlCharacters(line) + stack;
	process.stderr.write(`lms-server: ${scrubSecrets(line)}\n`);
	return err instanceof UsageError || (err instanceof RuleError && badValue(err)) ? USAGE_EXIT : FAILURE_EXIT;
}
