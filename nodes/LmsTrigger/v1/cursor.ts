/**
 * The trigger's memory between polls, and the rule that decides what is new. Pure functions:
 * the poller (poll.ts) does the requests and calls these.
 *
 * Lists are ordered by (created_at, id), and certificates do not even show their created_at, so
 * the cursor relies on list order and ids only. It remembers the ids of the last few records
 * read (the tail), newest last. Ids are random, so a record created in the same millisecond as
 * the newest one can sort *before* it, and an insert that commits a moment after it was
 * stamped can land among records already read; both land inside the tail. So on the next poll
 * the first tail record found is the anchor: everything after it that is not in the tail is new,
 * everything before it is old.
 *
 * Positions are hints for economy only: `start` says which page to read first, and `count`
 * lets a quiet poll be recognised from one page's `total`.
 */

/** A record as the trigger reads it: its place in the list and its id. */
export interface ListedRecord {
	/** 0-based index in the list at the time it was read. */
	position: number;
	id: string;
	json: Record<string, unknown>;
}

export interface CursorState {
	/** Layout version of this object. */
	version: 1;
	/** Event, filter, LMS and credential this cursor belongs to; any change starts a new baseline. */
	scope: string;
	/** Ids of the last records read, in list order, the newest last. Empty while the list is. */
	tail: string[];
	/** Index of the first tail record: the next poll starts on its page. */
	start: number;
	/** Records up to and including the newest one read (its index + 1): `total` when nothing changed. */
	count: number;
}

/**
 * How many of the newest ids are kept: records created in the same millisecond as the newest
 * one, or committed late by up to this many records, are still caught. Small, so the tail
 * rarely straddles two pages (which would cost one more request).
 */
export const TAIL_SIZE = 16;

export function inTail(cursor: Pick<CursorState, 'tail'>, id: string): boolean {
	return cursor.tail.includes(id);
}

/**
 * The records of `region` (a run of consecutive records of the list, in list order) that are
 * new for `cursor`: those after the first tail record found, and not in the tail. Undefined when
 * no tail record is in the region, so old and new cannot be told apart by ids.
 */
export function newRecords(cursor: Pick<CursorState, 'tail'>, region: ListedRecord[]): ListedRecord[] | undefined {
	const anchor = region.findIndex((record) => inTail(cursor, record.id));
	if (anchor === -1) return undefined;
	return region.slice(anchor + 1).filter((record) => !inTail(cursor, record.id));
}

/** The cursor after reading `region`, which ends with the newest record read. */
export function advanceCursor(base: Pick<CursorState, 'version' | 'scope'>, region: ListedRecord[]): CursorState {
	const tail = region.slice(-TAIL_SIZE);
	if (tail.length === 0) return { ...base, tail: [], start: 0, count: 0 };
	return {
		...base,
		tail: tail.map((record) => record.id),
		start: tail[0].position,
		count: tail[tail.length - 1].position + 1,
	};
}

/** The cursor stored by this version of the node for this scope; anything else is no cursor. */
export function readCursor(staticData: Record<string, unknown>, scope: string): CursorState | undefined {
	const cursor = staticData.cursor as Partial<CursorState> | undefined;
	if (!cursor || cursor.version !== 1 || cursor.scope !== scope) return undefined;
	const index = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 0;
	if (!index(cursor.start) || !index(cursor.count)) return undefined;
	if (!Array.isArray(cursor.tail) || !cursor.tail.every((id) => typeof id === 'string')) return undefined;
	return cursor as CursorState;
}

/** Replaces the stored cursor in one assignment, once everything it depends on was read. */
export function writeCursor(staticData: Record<string, unknown>, cursor: CursorState): void {
	staticData.cursor = cursor;
}
