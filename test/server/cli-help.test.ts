/**
 * Every `lms-server … --help` is well-formed: each command and option described, a required
 * option marked once, and every command documented in docs/operating.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Command } from 'commander';

import { buildProgram } from '../../server/src/cli/program';

function commands(command: Command, path: string[] = []): Array<{ path: string[]; command: Command }> {
	return command.commands.flatMap((sub) => [{ path: [...path, sub.name()], command: sub }, ...commands(sub, [...path, sub.name()])]);
}

const all = commands(buildProgram());
const OPERATING = readFileSync(join(__dirname, '..', '..', 'docs', 'operating.md'), 'utf8');

test.each(all.map(({ path, command }) => [path.join(' '), command] as const))('lms-server %s --help is well-formed', (_name, command) => {
	const help = command.helpInformation();
	expect(help).not.toMatch(/\(required\)\s*\(required\)/);
	expect(command.description()).not.toBe('');
	for (const option of command.options) expect(option.description).not.toBe('');
	// What `--help` prints: the usage line with the whole command, the description, each option and
	// argument listed with its words, --help among them, and no trailing spaces.
	expect(help.split('\n')[0]).toMatch(new RegExp(`^Usage: lms-server ${_name} `));
	// Help wraps long lines at 80 columns: words are compared with the spacing made one.
	const words = (text: string) => text.replace(/\s+/g, ' ');
	expect(words(help)).toContain(words(command.description()));
	for (const option of command.options) expect(help).toContain(option.flags);
	for (const argument of command.registeredArguments) {
		expect(argument.description).not.toBe('');
		expect(words(help)).toContain(words(argument.description));
	}
	expect(help).toMatch(/-h, --help\s+display help for command/);
	expect(help).not.toMatch(/[ \t]+\n/);
});

test.each(all.filter(({ command }) => command.commands.length === 0).map(({ path }) => path.join(' ')))('`%s` is in docs/operating.md', (name) => {
	expect(OPERATING).toContain(`\`${name}`);
});
