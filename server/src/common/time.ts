/** The API's one timestamp format: ISO 8601, UTC, milliseconds, `Z`. */
export function iso(date: Date): string;
export function iso(date: Date | null): string | null;
export function iso(date: Date | null): string | null {
	return date === null ? null : date.toISOString();
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
