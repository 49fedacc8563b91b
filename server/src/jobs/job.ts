/**
 * A periodic pass of background work (jobs/table.ts lists them all). The runner (jobs/run.ts)
 * runs `pass` now and then `everyMs` after each pass ends, so a pass never overlaps itself
 * however long it takes; a failure is logged and counted, and the next pass retries.
 */
export interface Job {
	/** The `job` label of the lms_job_* metrics, e.g. "overdue_sweep". */
	name: string;
	everyMs: number;
	/** One pass; `stopping` is aborted when the server shuts down, for passes that loop. */
	pass(stopping: AbortSignal): Promise<unknown>;
	/** Subscribes `wake` (a pass now, or right after the running one) to the job's own signal; returns the unsubscribe. */
	wakeOn?(wake: () => void): () => void;
	/** Waits, on stop, for work a pass started and left running (after the last pass ends). */
	settle?(): Promise<void>;
}
