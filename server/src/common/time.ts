/** The API's one timestamp format: ISO 8601, UTC, milliseconds, `Z`. */
export function iso(date: Date): string;
export function iso(date: Date | null): string | null;
export function iso(date: Date | null): string | null {
	return date === null ? null : date.toISOString();
}
