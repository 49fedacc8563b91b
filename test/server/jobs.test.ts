import pino from 'pino';

import type { Job } from '../../server/src/jobs/job';
import { runJob } from '../../server/src/jobs/run';
import { registry } from '../../server/src/metrics/registry';
import { waitUntil } from '../helpers/wait';

/** The job runner (jobs/run.ts), with passes of the test's own making: no server, no database. */

const silent = pino({ level: 'silent' });

/** A pass the test ends when it wants: `started` counts passes begun, `release()` ends the running one. */
function heldPasses(name: string, everyMs = 60_000) {
	let release = () => undefined as void;
	const state = { started: 0, inFlight: 0, mostAtOnce: 0, ended: 0 };
	const job: Job = {
		name,
		everyMs,
		pass: async () => {
			state.started++;
			state.inFlight++;
			state.mostAtOnce = Math.max(state.mostAtOnce, state.inFlight);
			await new Promise<void>((resolve) => (release = resolve));
			state.inFlight--;
			state.ended++;
		},
	};
	return { job, state, release: () => release() };
}

/** The job's sample of one lms_job_* metric, as GET /metrics would show it. */
async function sample(metric: string, job: string, series = metric): Promise<number | undefined> {
	const { values } = await registry.getSingleMetric(metric)!.get();
	return values.find((v) => v.labels.job === job && ((v as { metricName?: string }).metricName ?? metric) === series)?.value;
}

test('a pass never overlaps itself: wakes during a pass make one more pass after it, not a second at once', async () => {
	const { job, state, release } = heldPasses('test_overlap');
	const running = runJob(job, silent);
	await waitUntil(() => state.started === 1);
	running.wake();
	running.wake();
	expect(state.started).toBe(1);
	release();
	await waitUntil(() => state.started === 2, { what: 'the pass owed to the wakes' });
	expect(state.mostAtOnce).toBe(1);
	release();
	await waitUntil(() => state.ended === 2);
	await running.stop();
	// Two wakes during the first pass are one pass after it; the next comes a minute later.
	expect(state.started).toBe(2);
});

test('the next pass comes everyMs after the previous one ends', async () => {
	const { job, state, release } = heldPasses('test_interval', 50);
	const running = runJob(job, silent);
	await waitUntil(() => state.started === 1);
	release();
	await waitUntil(() => state.started === 2, { what: 'the second pass, everyMs later' });
	release();
	await running.stop();
	expect(state.mostAtOnce).toBe(1);
});

test('stop waits for the running pass and what it left running, and no pass starts after it', async () => {
	const { job, state, release } = heldPasses('test_stop', 10);
	let settled = false;
	job.settle = () => {
		settled = true;
		return Promise.resolve();
	};
	const running = runJob(job, silent);
	await waitUntil(() => state.started === 1);
	let stopped = false;
	const stopping = running.stop().then(() => (stopped = true));
	running.wake();
	await new Promise((resolve) => setImmediate(resolve));
	expect(stopped).toBe(false);
	release();
	await stopping;
	expect(state.ended).toBe(1);
	expect(settled).toBe(true);
	running.wake();
	expect(state.started).toBe(1);
});

test('a failed pass is counted and logged, and the next pass still runs', async () => {
	let passes = 0;
	const logged: string[] = [];
	const logger = pino({ level: 'error' }, { write: (line: string) => logged.push(line) });
	const running = runJob(
		{
			name: 'test_failing',
			everyMs: 10,
			pass: () => {
				passes++;
				return passes === 1 ? Promise.reject(new Error('the first pass fails')) : Promise.resolve();
			},
		},
		logger,
	);
	await waitUntil(() => passes >= 2, { what: 'the pass after the failure' });
	await running.stop();
	expect(await sample('lms_job_errors_total', 'test_failing')).toBe(1);
	expect(await sample('lms_job_duration_seconds', 'test_failing', 'lms_job_duration_seconds_count')).toBe(passes);
	const last = await sample('lms_job_last_run_timestamp_seconds', 'test_failing');
	expect(Math.abs(last! - Date.now() / 1000)).toBeLessThan(10);
	expect(logged.join('')).toContain('test_failing pass failed');
	expect(logged.join('')).toContain('the first pass fails');
});

test('wakeOn subscribes the job\'s own signal, and stop unsubscribes it', async () => {
	const { job, state, release } = heldPasses('test_wake_on');
	let signal: (() => void) | undefined;
	job.wakeOn = (wake) => {
		signal = wake;
		return () => (signal = undefined);
	};
	const running = runJob(job, silent);
	await waitUntil(() => state.started === 1);
	release();
	await waitUntil(() => state.ended === 1);
	signal!();
	await waitUntil(() => state.started === 2, { what: 'the pass the signal asked for' });
	release();
	await running.stop();
	expect(signal).toBeUndefined();
});
