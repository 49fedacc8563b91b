/** A mistake the operator can fix; printed as one line, never with a stack. */
export class CliError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'CliError';
	}
}

/** `--json` output: exactly one document on stdout, so `| jq` always works. */
export function printJson(document: unknown): void {
	process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}

export function printLines(...lines: string[]): void {
	process.stdout.write(`${lines.join('\n')}\n`);
}

/** A plain aligned table; the last column is not padded so lines carry no trailing spaces. */
export function printTable(headers: string[], rows: string[][]): void {
	const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
	const line = (cells: string[]) =>
		cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
	printLines(line(headers), ...rows.map(line));
}
