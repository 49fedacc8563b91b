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
});

test.each(all.filter(({ command }) => command.commands.length === 0).map(({ path }) => path.join(' ')))('`%s` is in docs/operating.md', (name) => {
	expect(OPERATING).toContain(`\`${name}`);
});
