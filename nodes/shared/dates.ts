import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * Date-times a node sends to the LMS. The LMS wants ISO 8601 with a zone (SPEC §17: a zone-less
 * due_at is refused, since nobody could tell whose midnight it is), while n8n's date picker gives
 * the wall time without one ("2026-12-01T09:00:00"), meant in the workflow's time zone
 * (Settings → Time Zone). So a zone-less value is read in that zone, and a value with a zone, a
 * Date or a Luxon DateTime from an expression ({{ $now.plus(7, 'days') }}) is taken as it is.
 * A date alone ("2026-12-01", typed or mapped from a spreadsheet) was that day's midnight up to
 * LMS Enrollments 2.1; from 2.2 it is the end of that day (23:59:59.999, Luxon's endOf('day')) in
 * the workflow's zone, since "due on the 1st" means the student has all of the 1st.
 */

const ZONED = /(?:Z|[+-]\d{2}:?\d{2})$/i;
const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?$/;

/** What a date without a time means: the start of that day (up to 2.1) or its end (2.2 on). */
export type DateAlone = 'startOfDay' | 'endOfDay';
const END_OF_DAY = [23, 59, 59, 999];

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
export function lmsDateTime(
	node: INode,
	value: unknown,
	label: string,
	timeZone: string,
	itemIndex?: number,
	dateAlone: DateAlone = 'startOfDay',
): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	let ms = NaN;
	if (value instanceof Date) ms = value.getTime();
	else if (isDateTimeLike(value)) ms = Date.parse(value.toISO() ?? '');
	else if (typeof value === 'string') {
		const text = value.trim();
		const wall = WALL_TIME.exec(text);
		if (ZONED.test(text)) ms = Date.parse(text);
		else if (wall) {
			let fields = wall.slice(1).map((field, i) => (i === 6 ? Number((field ?? '0').padEnd(3, '0')) : Number(field ?? 0)));
			if (wall[4] === undefined && dateAlone === 'endOfDay') fields = [...fields.slice(0, 3), ...END_OF_DAY];
			const [, month, day, hour, minute, second] = fields;
			// From 2.2 a day the month lacks (02-30) fails; up to 2.1 it ran on into the next month, and still does there.
			const lastDay = dateAlone === 'endOfDay' ? new Date(Date.UTC(fields[0], month, 0)).getUTCDate() : 31;
			if (month >= 1 && month <= 12 && day >= 1 && day <= lastDay && hour <= 23 && minute <= 59 && second <= 59) ms = wallTimeIn(fields, timeZone);
		}
	}
	if (!Number.isFinite(ms)) {
		throw new NodeOperationError(node, `${label} must be a date and time, not "${String(value)}"`, {
			itemIndex,
			description: `Pick a date, or give an ISO 8601 date-time such as 2026-12-01T17:00:00Z or {{ $now.plus(7, 'days') }}. A value without a time zone is read in the workflow's time zone (${timeZone})${dateAlone === 'endOfDay' ? ', and a date alone (2026-12-01) is the end of that day there' : ''}.`,
		});
	}
	return new Date(ms).toISOString();
}
