/**
 * RFC 4180 CSV: comma-separated, CRLF line ends, a field quoted when it holds a comma, a quote or
 * a line break (quotes doubled). A text that a spreadsheet would run as a formula (starting with
 * =, +, -, @, a tab or a carriage return: a course title is anyone's text) gets a leading `'`, so
 * opening the auditor's file never runs anything (OWASP's CSV injection advice).
 */
function csvField(value: string | number): string {
	if (typeof value === 'number') return String(value);
	const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
	return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvLines(header: readonly string[], rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
	return [header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}
