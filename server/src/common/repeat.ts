/**
 * Runs `pass` now, then `everyMs` after each pass ends, until stopped: passes never overlap,
 * however long one takes. A failure goes to `onError` and the next pass retries.
 */
export function repeatPasses(pass: () => Promise<unknown>, everyMs: number, onError: (err: unknown) => void): { stop(): Promise<void> } {
	let stopped = false;
	let timer: NodeJS.Timeout | undefined;
	let running: Promise<void> = Promise.resolve();
	const run = () => {
		running = pass()
			.then(() => undefined, onError)
			.then(() => {
				if (stopped) return;
				timer = setTimeout(run, everyMs);
				timer.unref();
			});
	};
	run();
	return {
		async stop() {
			stopped = true;
			clearTimeout(timer);
			await running;
		},
	};
}
