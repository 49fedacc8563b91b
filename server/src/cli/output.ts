import { escapeControlCharacters } from '../common/text';

/** A mistake the operator can fix; printed as one line, never with a stack. */
export class CliError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'CliError';
	}
}

/**
 * A command line no state of the database would accept: an option's value that is malformed, a
 * missing or conflicting option. It exits 2, as commander's own usage errors do; every other
 * failure exits 1 (cli/errors.ts).
 */
export class UsageError extends CliError {
	constructor(message: string) {
		super(message);
		this.name = 'UsageError';
	}
}

/**
 * `--json` output: exactly one document on stdout, so `| jq` always works. JSON.stringify
 * escapes C0 controls but leaves DEL, the C1 controls and bidi overrides raw; they can only sit
 * inside strings, where the \u form means the same.
 */
export function printJson(document: unknown): void {
	const text = JSON.stringify(document, null, 2).replace(
		/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu,
		(c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`,
	);
	process.stdout.write(`${text}\n`);
}

/**
 * Lines for a person at a terminal. Labels and names may hold control characters written before
 * they were refused (ESC sequences can clear or retitle a terminal): each is shown escaped.
 */
export type Print = (...lines: string[]) => void;

export const printLines: Print = (...lines) => {
	process.stdout.write(`${lines.map(escapeControlCharacters).join('\n')}\n`);
};

/**
 * For what a person must read while stdout carries something else: `start` writes its JSON log
 * lines to stdout, so the demo banner (a password and a key) goes to stderr, never into logs
 * that get collected.
 */
export const printToStderr: Print = (...lines) => {
	process.stderr.write(`${lines.map(escapeControlCharacters).join('\n')}\n`);
};

/** A plain aligned table; the last column is not padded so lines carry no trailing spaces. */
export function printTable(headers: string[], rows: string[][], print: Print = printLines): void {
	const cells = rows.map((r) => r.map(escapeControlCharacters));
	const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
	const line = (row: string[]) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
	print(line(headers), ...cells.map(line));
}

/** A list command's answer: one JSON array with --json, else a table, or `none` when there is nothing. */
export function printList<T>(
	items: T[],
	{ json, toJson, none, headers, row }: { json: boolean | undefined; toJson: (item: T) => unknown; none: string; headers: string[]; row: (item: T) => string[] },
): void {
	if (json) return printJson(items.map(toJson));
	if (items.length === 0) return printLines(none);
	printTable(headers, items.map(row));
}
