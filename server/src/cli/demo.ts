import type { Command } from 'commander';

import { activityRound } from '../demo/activity';
import { findOrganization } from '../organizations/service';
import { withDatabase } from './context';
import { printLines, UsageError } from './output';

/** `10s`, `500ms`, `2m` or plain seconds → milliseconds (at least 100 ms). */
function parseInterval(value: string): number {
	const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
	const ms = match ? Number(match[1]) * { ms: 1, s: 1000, m: 60_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm'] : NaN;
	if (!(ms >= 100 && ms <= 86_400_000)) throw new UsageError(`--every must be a duration such as 10s, 500ms or 2m (100ms to 24h), not "${value}".`);
	return ms;
}

export function registerDemo(program: Command): void {
	const demo = program.command('demo').description('bring the demo data to life');

	demo
		.command('activity')
		.description('keep an organization busy: learners progress, complete, withdraw; new students arrive (Ctrl-C stops)')
		.option('--org <slug>', 'organization slug', 'acme')
		.option('--every <duration>', 'time between rounds, e.g. 10s, 500ms, 2m', '10s')
		.option('--rounds <n>', 'stop after this many rounds (default: run until stopped)')
		.action((opts: { org: string; every: string; rounds?: string }) => {
			const every = parseInterval(opts.every);
			const rounds = opts.rounds === undefined ? Infinity : Number(opts.rounds);
			if (!(Number.isInteger(rounds) || rounds === Infinity) || rounds < 1) throw new UsageError(`--rounds must be a whole number of 1 or more, not "${opts.rounds}".`);
			return withDatabase(async () => {
				const org = await findOrganization(opts.org);
				let stopping = false;
				let pause: { timer: NodeJS.Timeout; resolve(): void } | undefined;
				const stop = () => {
					stopping = true;
					if (pause) clearTimeout(pause.timer);
					pause?.resolve();
				};
				process.once('SIGINT', stop);
				process.once('SIGTERM', stop);
				printLines(`Demo activity in ${org.slug} every ${opts.every}; Ctrl-C stops.`);
				try {
					for (let round = 0; round < rounds && !stopping; round++) {
						for (const line of await activityRound(org)) printLines(`${new Date().toISOString()}  ${line}`);
						if (round + 1 < rounds && !stopping) {
							await new Promise<void>((resolve) => {
								pause = { timer: setTimeout(resolve, every), resolve };
							});
						}
					}
				} finally {
					process.off('SIGINT', stop);
					process.off('SIGTERM', stop);
				}
				printLines('Demo activity stopped.');
			});
		});
}
