import type { Command } from 'commander';

import { seedDemo, type DemoResult } from '../demo/seed';
import { withDatabase } from './context';
import { UsageError, printJson, printLines, printTable, type Print } from './output';

/** The human form of DemoResult; `start --demo` prints the same thing (to stderr). */
export function printDemo(demo: DemoResult, print: Print = printLines): void {
	print('Demo data loaded.', '', 'Organizations:');
	printTable(['SLUG', 'ID', 'PLAN'], demo.organizations.map((o) => [o.slug, o.id, o.plan]), print);
	print('', 'Accounts (passwords are shown only now):');
	printTable(
		['ORGANIZATION', 'ROLE', 'EMAIL', 'PASSWORD'],
		demo.accounts.map((a) => [a.organization, a.role, a.email, a.password]),
		print,
	);
	print('', 'Draft courses (hidden from the API):');
	printTable(['ORGANIZATION', 'ID'], demo.draft_courses.map((c) => [c.organization, c.id]), print);
}

export function registerSeed(program: Command): void {
	program
		.command('seed')
		.description('load demo data (refuses if the demo organizations exist)')
		.option('--demo', 'the demo organizations acme, globex and initech')
		.option('--json', 'print what was created as JSON')
		.action((opts: { demo?: boolean; json?: boolean }) => {
			// Only one kind of seed exists; the flag keeps a bare `seed` from loading fake people by accident.
			if (!opts.demo) throw new UsageError('nothing to seed: pass --demo to load the demo organizations.');
			return withDatabase(async () => {
				const demo = await seedDemo();
				if (opts.json) printJson(demo);
				else printDemo(demo);
			}, { create: true });
		});
}
