import type { Logger } from 'pino';

import { jobDuration, jobErrors, jobLastRun } from '../metrics/registry';
import type { Job } from './job';

export interface RunningJob {
	/** A pass now, or right after the running one. */
	wake(): void;
	/** No pass starts any more; resolves once the running one (and what it left running) ends. */
	stop(): Promise<void>;
}

async function timedPass(job: Job, stopping: AbortSignal, logger: Logger): Promise<void> {
	const labels = { job: job.name };
	const started = process.hrtime.bigint();
	try {
		await job.pass(stopping);
	} catch (err) {
		jobErrors.inc(labels);
		logger.error({ err, job: job.name }, `${job.name} pass failed`);
	} finally {
		jobDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
		jobLastRun.set(labels, Date.now() / 1000);
	}
}

/** Runs `job` from now until stopped (see Job). */
export function runJob(job: Job, logger: Logger): RunningJob {
	const stopping = new AbortController();
	let timer: NodeJS.Timeout | undefined;
	let running: Promise<void> | undefined;
	let again = false;
	const wake = () => {
		if (stopping.signal.aborted) return;
		if (running) {
			again = true;
			return;
		}
		clearTimeout(timer);
		running = timedPass(job, stopping.signal, logger).finally(() => {
			running = undefined;
			if (stopping.signal.aborted) return;
			if (again) {
				again = false;
				wake();
				return;
			}
			timer = setTimeout(wake, job.everyMs);
			timer.unref();
		});
	};
	const unsubscribe = job.wakeOn?.(wake);
	wake();
	return {
		wake,
		async stop() {
			stopping.abort();
			unsubscribe?.();
			clearTimeout(timer);
			await running;
			await job.settle?.();
		},
	};
}
