/**
 * A name made safe for any file system (lower case, letters and digits, words joined by `-`, at
 * most 60 characters; `fallback` if nothing is left): accents dropped, not the letters they sit on.
 */
function fileNamePart(text: string, fallback: string): string {
	return (
		text
			.normalize('NFKD')
			.replace(/[\u0300-\u036f]/g, '')
			.toLowerCase()
			.replace(/[^a-z0-9]+/g, '-')
			.replace(/^-+|-+$/g, '')
			.slice(0, 60)
			.replace(/-+$/, '') || fallback
	);
}

/**
 * `<prefix>-<name>-<YYYY-MM-DD>.csv` for a Settings download: whose list (a group's or an
 * organization's name, made safe) and the day (UTC) it was read, so that files of several lists
 * and days sort apart in a Downloads folder.
 */
export function csvFileName(prefix: string, name: string, fallback: string, at: Date): string {
	return `${prefix}-${fileNamePart(name, fallback)}-${at.toISOString().slice(0, 10)}.csv`;
}

/**
 * A CSV as a spreadsheet user downloads it, behind a UTF-8 byte-order mark: Excel on Windows
 * reads a file without one in the local code page and garbles every text that is not plain ASCII
 * ("Zoë", "Łukasz", "Sécurité"); other programs skip the mark. The API's CSV keeps none (programs
 * read it, and its bytes are the API's contract).
 */
export function withByteOrderMark(csv: string): string {
	return `\uFEFF${csv}`;
}

/** `Content-Disposition` for a download named `name` (ASCII already; `filename*` for the strict). */
export function attachment(name: string): string {
	return `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
