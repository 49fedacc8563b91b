import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * Date-times a node sends to the LMS. The LMS wants ISO 8601 with a zone (SPEC §17: a zone-less
 * due_at is refused, since nobody could tell whose midnight it is), while n8n's date picker gives
 * the wall time without one ("2026-12-01T09:00:00"), meant in the workflow's time zone
 * (Settings → Time Zone). So a zone-less value is read in that zone, and a value with a zone, a
 * Date or a Luxon DateTime from an expression ({{ $now.plus(7, 'days') }}) is taken as it is.
 */

const ZONED = /(?:Z|[+-]\d{2}:?\d{2})$/i;
const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?$/;

/** The zone's offset from UTC at `instant`, in ms (positive east of Greenwich). */
function offsetAt(instant: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	}).formatToParts(new Date(instant));
	const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
	const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
	return wall - (instant - (instant % 1000));
}

/** A wall time in `timeZone` as an instant; across a DST change the offset is taken twice. */
function wallTimeIn(fields: number[], timeZone: string): number {
	const [year, month, day, hour, minute, second, ms] = fields;
	const asUtc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
	const first = asUtc - offsetAt(asUtc, timeZone);
	return asUtc - offsetAt(first, timeZone);
}

function isDateTimeLike(value: unknown): value is { toISO(): string | null } {
	return typeof value === 'object' && value !== null && typeof (value as { toISO?: unknown }).toISO === 'function';
}

/**
 * A date-time parameter as the LMS takes it (ISO 8601 in UTC), or undefined when it is empty.
 * Anything that is not a date-time fails the item with the parameter's name and what to give.
 */
export function lmsDateTime(node: INode, value: unknown, label: string, timeZone: string, itemIndex?: number): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	let ms = NaN;
	if (value instanceof Date) ms = value.getTime();
	else if (isDateTimeLike(value)) ms = Date.parse(value.toISO() ?? '');
	else if (typeof value === 'string') {
		const text = value.trim();
		const wall = WALL_TIME.exec(text);
		if (ZONED.test(text)) ms = Date.parse(text);
		else if (wall) {
			const fields = wall.slice(1).map((field, i) => (i === 6 ? Number((field ?? '0').padEnd(3, '0')) : Number(field ?? 0)));
			const [, month, day, hour, minute, second] = fields;
			if (month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59) ms = wallTimeIn(fields, timeZone);
		}
	}
	if (!Number.isFinite(ms)) {
		throw new NodeOperationError(node, `${label} must be a date and time, not "${String(value)}"`, {
			itemIndex,
			description: `Pick a date, or give an ISO 8601 date-time such as 2026-12-01T17:00:00Z or {{ $now.plus(7, 'days') }}. A value without a time zone is read in the workflow's time zone (${timeZone}).`,
		});
	}
	return new Date(ms).toISOString();
}
