import { InvalidArgumentError } from 'commander';

/**
 * `--limit <n>`: parsed while commander reads the command line, so a bad value is a usage error
 * (exit 2) before any database is opened or any organization looked up, whatever else is wrong.
 */
export function limitOption(text: string): number {
	const limit = Number(text);
	if (!/^\d+$/.test(text) || limit < 1 || limit > 10_000) throw new InvalidArgumentError(`--limit must be a whole number from 1 to 10000.`);
	return limit;
}
