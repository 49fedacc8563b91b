import { processReads } from './index';
import { statement } from './reads';
import type { Where } from './where';

/**
 * What a component's queries.ts says about the table a list and a GET read: its name, the
 * columns the API shows (as the row's property names), which of them are timestamps, and a
 * condition every read adds (courses: published only). The SQL of list pages, totals and
 * single records is made from it here, once per shape.
 */
export interface Table<R> {
	name: string;
	/** Property name → column. */
	columns: { [K in keyof R & string]: string };
	/** The properties that are timestamps. */
	dates: ReadonlyArray<keyof R & string>;
	/** SQL over the table's own columns that every read adds, e.g. `status = 'published'`. */
	always?: string;
}

/** Lists are ordered by creation, ties broken by id: the (organization_id, …, created_at, id) indexes serve it. */
const ORDER = 'created_at, id';

/**
 * Up to this many skipped rows, a page is read in one pass. Beyond it, reading whole rows only
 * to skip them costs more than a second pass: the page's ids are found in the index alone (no
 * table row is touched for a skipped one), then only those rows are read (a deferred join).
 */
const DEFERRED_JOIN_FROM_OFFSET = 1_000;

const selectLists = new WeakMap<object, string>();

/** `t.column AS "property", …`, made once per table. */
function selectList<R>(table: Table<R>): string {
	let list = selectLists.get(table);
	if (list === undefined) {
		list = Object.entries(table.columns as Record<string, string>)
			.map(([property, column]) => `t.${column} AS "${property}"`)
			.join(', ');
		selectLists.set(table, list);
	}
	return list;
}

function scoped<R>(table: Table<R>, where: Where): string {
	return table.always ? `${table.always} AND ${where.toString()}` : where.toString();
}

export interface PageRequest {
	page: number;
	perPage: number;
}

/** One page of the rows `where` selects, in list order. */
export async function readPage<R>(table: Table<R>, where: Where, { page, perPage }: PageRequest): Promise<R[]> {
	return readRange(table, where, (page - 1) * perPage, perPage);
}

/** Up to `limit` of the rows `where` selects, in list order, after skipping `offset` (SCIM's startIndex - 1). */
export async function readRange<R>(table: Table<R>, where: Where, offset: number, limit: number): Promise<R[]> {
	const params = [...where.params, limit, offset];
	const [limitParam, skip] = [`$${params.length - 1}`, `$${params.length}`];
	const sql =
		offset < DEFERRED_JOIN_FROM_OFFSET
			? `SELECT ${selectList(table)} FROM ${table.name} t WHERE ${scoped(table, where)} ORDER BY ${ORDER} LIMIT ${limitParam} OFFSET ${skip}`
			: `SELECT ${selectList(table)} FROM ${table.name} t JOIN (SELECT id FROM ${table.name} WHERE ${scoped(table, where)} ` +
				`ORDER BY ${ORDER} LIMIT ${limitParam} OFFSET ${skip}) page ON page.id = t.id ORDER BY t.created_at, t.id`;
	return processReads().rows<R>(statement(sql, table.dates), params);
}

/** How many rows `where` selects, counted (for filters no counter keeps: see db/list-counts.ts). */
export async function countRows<R>(table: Table<R>, where: Where): Promise<number> {
	const sql = `SELECT count(*) AS n FROM ${table.name} WHERE ${scoped(table, where)}`;
	const [row] = await processReads().rows<{ n: number | string }>(statement(sql), where.params);
	return Number(row.n);
}

/** The row with this id in this organization, or undefined. */
export async function readOne<R>(table: Table<R>, organizationId: string, id: string): Promise<R | undefined> {
	const always = table.always ? ` AND ${table.always}` : '';
	const sql = `SELECT ${selectList(table)} FROM ${table.name} t WHERE t.id = $1 AND t.organization_id = $2${always}`;
	const [row] = await processReads().rows<R>(statement(sql, table.dates), [id, organizationId]);
	return row;
}
