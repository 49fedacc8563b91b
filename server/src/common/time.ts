/**
 * A moment as the code holds it: a Date (a model's attribute), or the ISO 8601 text a list or GET
 * read from the database (db/table.ts reads timestamps through `isoText`), which is already the
 * API's form: a page of rows is shown without a Date made and formatted again per timestamp.
 */
/** A day in milliseconds (UTC days: no time zone changes the length of one). */
export const DAY_MS = 86_400_000;

export type Timestamp = Date | string;

/** The API's one timestamp format: ISO 8601, UTC, milliseconds, `Z`. */
export function iso(time: Timestamp): string;
export function iso(time: Timestamp | null): string | null;
export function iso(time: Timestamp | null): string | null {
	return time === null || typeof time === 'string' ? time : time.toISOString();
}

/** Milliseconds since the epoch, to compare a Timestamp with a time. */
export function epochMs(time: Timestamp): number {
	return typeof time === 'string' ? Date.parse(time) : time.getTime();
}

/**
 * An ISO 8601 date-time with its offset (`2026-05-01T00:00:00Z`, `…+02:00`, optional fraction),
 * naming a day and time that exist. A bare date or a time without offset is refused: which
 * instant it means would be a guess.
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))$/i;

export function isDateTime(value: string): boolean {
	const m = DATE_TIME.exec(value);
	if (!m) return false;
	const [year, month, day, hour, minute, second = 0] = m.slice(1, 7).map((part) => Number(part ?? 0));
	const inMonth = new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day;
	const offsetOk = m[8] === undefined || (Number(m[8]) <= 23 && Number(m[9]) <= 59);
	return month >= 1 && month <= 12 && inMonth && hour <= 23 && minute <= 59 && second <= 59 && offsetOk && !Number.isNaN(Date.parse(value));
}
