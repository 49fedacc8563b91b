/**
 * Retry delays after a failed attempt, as multiples of the base (1 min by default): about
 * 1 min, 5 min, 30 min, 2 h, 8 h and 24 h (SPEC §12), so seven attempts over ~35 hours.
 */
const RETRY_MULTIPLES = [1, 5, 30, 120, 480, 1440] as const;

export const MAX_ATTEMPTS = RETRY_MULTIPLES.length + 1;

/** When to try again after `attempts` failed attempts, or undefined when it is time to give up. */
export function nextAttemptAfter(attempts: number, baseMs: number, now: Date): Date | undefined {
	const multiple = RETRY_MULTIPLES[attempts - 1];
	return multiple === undefined ? undefined : new Date(now.getTime() + multiple * baseMs);
}

/** An endpoint whose deliveries have failed without a success for this long is disabled. */
export const DISABLE_AFTER_MS = 3 * 24 * 3_600_000;
