import type { Logger } from 'pino';

import type { Config } from '../config';
import type { Database } from '../db';
import { runJob } from './run';
import { jobTable } from './table';

/** Starts every job of the table; stop() ends them all, each after its running pass. */
export function startJobs(context: { config: Config; db: Database; logger: Logger }): { stop(): Promise<void> } {
	const running = jobTable(context).map((job) => runJob(job, context.logger));
	return {
		async stop() {
			await Promise.all(running.map((job) => job.stop()));
		},
	};
}
