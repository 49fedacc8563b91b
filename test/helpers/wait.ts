type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

export interface WaitOptions {
	/** How long to keep trying, in ms (default 10 s). */
	timeout?: number;
	/** Pause between tries, in ms (default 25). */
	interval?: number;
	/** What is awaited, for the error message. */
	what?: string;
}

/**
 * Tries `condition` until it returns a truthy value, which it returns, or until the deadline,
 * when it throws with the last value seen. Tests wait for what they check: a presence asserted
 * after a fixed sleep flakes on a loaded machine, and an absence asserted after one passes
 * vacuously on a slow one. Absence is asserted only after a positive signal: wait for something
 * that happens after the absent thing would have, then check.
 */
export async function waitUntil<T>(condition: () => T | Promise<T>, { timeout = 10_000, interval = 25, what = 'the condition' }: WaitOptions = {}): Promise<Truthy<T>> {
	const deadline = Date.now() + timeout;
	for (;;) {
		const value = await condition();
		if (value) return value as Truthy<T>;
		if (Date.now() >= deadline) throw new Error(`${what} did not hold within ${timeout} ms (last: ${JSON.stringify(value)})`);
		await new Promise((resolve) => setTimeout(resolve, interval));
	}
}
