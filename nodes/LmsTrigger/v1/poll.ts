import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { pollDeadline } from '../../shared/polling';
import { lmsApiPage, MAX_PER_PAGE } from '../../shared/transport';
import { advanceCursor, inTail, newRecords, TAIL_SIZE, type CursorState, type ListedRecord } from './cursor';
import type { EventDefinition } from './events';

const PER_PAGE = MAX_PER_PAGE;

/** What one poll found: the records to emit (oldest first) and the cursor to store. */
export interface PollOutcome {
	records: IDataObject[];
	/** Undefined when the stored cursor stays as it is. */
	cursor?: CursorState;
}

/** Reads pages of one list for one poll, and keeps what it read by page number. */
class ListReader {
	readonly pages = new Map<number, ListedRecord[]>();

	/** The list's `total` as of the first page read. */
	total = 0;

	requests = 0;

	private slowestMs = 0;

	constructor(
		private readonly context: IPollFunctions,
		private readonly event: EventDefinition,
		private readonly query: Record<string, string>,
		private readonly deadline: number | undefined,
	) {}

	async read(page: number, perPage = PER_PAGE): Promise<ListedRecord[]> {
		const started = Date.now();
		const list = await lmsApiPage.call(this.context, this.event.endpoint, { page, perPage, qs: this.query });
		this.slowestMs = Math.max(this.slowestMs, Date.now() - started);
		if (this.requests++ === 0) this.total = list.pagination.total;
		const records = list.data.map((json, index) => this.listed(json, (page - 1) * perPage + index));
		if (perPage === PER_PAGE) this.pages.set(page, records);
		return records;
	}

	/** Whether another request would likely end after n8n's poll budget. */
	outOfTime(): boolean {
		return this.deadline !== undefined && Date.now() + this.slowestMs >= this.deadline;
	}

	/** The pages read, in list order, as one run of records (a record read twice counts once). */
	region(): ListedRecord[] {
		const ids = new Set<string>();
		const region: ListedRecord[] = [];
		for (const page of [...this.pages.keys()].sort((a, b) => a - b)) {
			for (const record of this.pages.get(page)!) {
				if (ids.has(record.id)) continue;
				ids.add(record.id);
				region.push(record);
			}
		}
		return region;
	}

	/** Whether a record with this id was read in this poll. */
	has(id: string): boolean {
		for (const records of this.pages.values()) if (records.some((record) => record.id === id)) return true;
		return false;
	}

	private listed(json: IDataObject, position: number): ListedRecord {
		const id = json.id;
		if (typeof id !== 'string' || id === '') {
			throw new NodeOperationError(
				this.context.getNode(),
				`The LMS listed ${this.event.records} without an id: the trigger cannot tell which are new`,
				{ description: `Record at position ${position + 1} of ${this.event.endpoint}: ${JSON.stringify(json).slice(0, 200)}` },
			);
		}
		return { position, id, json };
	}
}

/**
 * First activation (or a new event, filter or credential): remember where the list ends and
 * emit nothing. Reads page 1 for the total, then the last page (and the one before it when the
 * last page is too short to fill the tail).
 */
export async function takeBaseline(
	context: IPollFunctions,
	event: EventDefinition,
	query: Record<string, string>,
	scope: string,
): Promise<PollOutcome> {
	const reader = new ListReader(context, event, query, undefined);
	await reader.read(1);
	const lastPage = Math.ceil(reader.total / PER_PAGE);
	if (lastPage > 1) {
		let low = lastPage;
		let records = await reader.read(low);
		// The list shrank between the two requests: step back to where it ends now.
		while (records.length === 0 && low > 1) records = await reader.read(--low);
		if (records.length < TAIL_SIZE && low > 1) {
			low--;
			if (!reader.pages.has(low)) await reader.read(low);
		}
		for (const page of [...reader.pages.keys()]) if (page < low) reader.pages.delete(page);
	}
	return { records: [], cursor: advanceCursor({ version: 1, scope }, reader.region()) };
}

/**
 * A poll with a cursor. The first request reads the page holding the tail's first record; a
 * `total` equal to the stored `count`, with only tail records where the tail was, is a quiet
 * poll: one request. Otherwise the pages after it are read up to the last one `total` points
 * to, oldest first, so that stopping early for the poll budget still leaves a cursor behind
 * which everything was emitted.
 */
export async function catchUp(
	context: IPollFunctions,
	event: EventDefinition,
	query: Record<string, string>,
	cursor: CursorState,
): Promise<PollOutcome> {
	const reader = new ListReader(context, event, query, pollDeadline(context));
	const firstPage = Math.floor(cursor.start / PER_PAGE) + 1;
	const first = await reader.read(firstPage);
	const unchanged = first.every((record) => record.position < cursor.start || inTail(cursor, record.id));
	if (reader.total === cursor.count && unchanged) return { records: [] };

	// Records only ever get added, so the tail stays where it was or moves down the list. If the
	// page starts inside the tail anyway (records were removed), step back to the tail's start.
	let low = firstPage;
	while (low > 1) {
		const head = reader.pages.get(low)?.[0];
		if (head) {
			if (!inTail(cursor, head.id) || head.id === cursor.tail[0]) break;
			low--;
		} else {
			if (reader.total > (low - 1) * PER_PAGE) break;
			low = Math.max(1, Math.min(low - 1, Math.ceil(reader.total / PER_PAGE)));
		}
		await reader.read(low);
	}

	// Then forward to the end of the list as `total` described it. The budget may stop the walk,
	// but only once the newest record of the last poll was passed and at least one page after
	// the first was read, so every poll makes progress.
	const newestBefore = cursor.tail[cursor.tail.length - 1];
	const lastPage = Math.ceil(reader.total / PER_PAGE);
	for (let page = firstPage + 1; page <= lastPage; page++) {
		const passedCursor = newestBefore === undefined || reader.has(newestBefore);
		if (page > firstPage + 1 && passedCursor && reader.outOfTime()) break;
		const records = await reader.read(page);
		if (records.length < PER_PAGE) break;
	}

	const region = reader.region();
	let fresh = cursor.tail.length === 0 ? region : newRecords(cursor, region);
	if (!fresh) {
		// Every remembered record is gone from the list (deleted in the LMS). Records are added
		// after them, so what now sits where they were, and after, is new.
		context.logger.warn(
			`LMS Trigger: none of the last ${event.records} seen are listed any more (deleted?); treating those from position ${cursor.start + 1} on as new`,
		);
		fresh = region.filter((record) => record.position >= cursor.start);
	}
	return {
		records: fresh.map((record) => record.json as IDataObject),
		cursor: advanceCursor(cursor, region),
	};
}

/**
 * "Fetch Test Event": the most recent record, read with one-record pages (two small requests),
 * and no cursor touched.
 */
export async function sample(
	context: IPollFunctions,
	event: EventDefinition,
	query: Record<string, string>,
): Promise<IDataObject[]> {
	const reader = new ListReader(context, event, query, undefined);
	const first = await reader.read(1, 1);
	if (reader.total <= 1) return first.map((record) => record.json as IDataObject);
	const last = await reader.read(reader.total, 1);
	return last.map((record) => record.json as IDataObject);
}
