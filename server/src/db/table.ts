import type { Timestamp } from '../common/time';
import type { Database } from './database';
import { database } from './current';
import type { Where } from './where';
import type { Scope } from '../api-keys/model';

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
	/** The properties that are timestamps: read as ISO 8601 text in the API's form (see Read). */
	dates: ReadonlyArray<keyof R & string>;
	/** SQL over the table's own columns that every read adds, e.g. `status = 'published'`. */
	always?: string;
	/** Newest first (created_at, id descending): a log read from its latest entries (webhook deliveries). */
	newestFirst?: boolean;
}

/**
 * A row type made from a model's attributes, as a Table reads it: each timestamp is a Timestamp,
 * the ISO 8601 text the database gave (db.isoText), or a Date when the same serializer is given a
 * model instance (a create, an update, an event).
 */
export type Read<M> = { [K in keyof M]: M[K] extends Date ? Timestamp : M[K] extends Date | null ? Timestamp | null : M[K] };

/** A record a list item may embed (`expand=`): where its id is in a row, and how a page's worth is read. */
export interface Expansion<R> {
	/** The id of the embedded record in a row. */
	idOf: (row: R) => string;
	/** The records with these ids in the organization, shown as the item embeds them. */
	read: (organizationId: string, ids: string[]) => Promise<Array<{ id: string }>>;
	/** The embedded record's fields, as the API document names them (`{id, title}`). */
	shows: string;
	/**
	 * The scope the embedded record needs beyond the list's own (a student's name and e-mail are
	 * roster data: `read:users`, SPEC §5), or undefined when the list's scope covers it.
	 */
	scope?: Scope;
}

const newestFirstTables = new WeakMap<object, object>();

/** The same table read newest first (a list's `sort=-created_at`), one object per table so its SQL is made once. */
export function newestFirstOf<R>(table: Table<R>): Table<R> {
	let found = newestFirstTables.get(table) as Table<R> | undefined;
	if (found === undefined) newestFirstTables.set(table, (found = { ...table, newestFirst: true }));
	return found;
}

/** Lists are ordered by creation, ties broken by id: the (organization_id, …, created_at, id) indexes serve it. */
export function orderOf<R>(table: Table<R>, alias = ''): string {
	const direction = table.newestFirst ? ' DESC' : '';
	return `${alias}created_at${direction}, ${alias}id${direction}`;
}

/**
 * Up to this many skipped rows, a page is read in one pass. Beyond it, reading whole rows only
 * to skip them costs more than a second pass: the page's ids are found in the index alone (no
 * table row is touched for a skipped one), then only those rows are read (a deferred join).
 */
const DEFERRED_JOIN_FROM_OFFSET = 1_000;

const selectLists = new WeakMap<object, Map<string, string>>();

/**
 * `t.column AS "property", …`, made once per table and dialect. Timestamps come as the ISO text
 * the database formats (isoText), already the API's form, and rows are used as read: a Date per
 * timestamp, formatted again by the serializer, cost ≈ 90 µs of CPU per page of 50 users
 * (docs/benchmarks.md, API overhead).
 */
function selectList<R>(db: Database, table: Table<R>): string {
	let lists = selectLists.get(table);
	if (lists === undefined) selectLists.set(table, (lists = new Map<string, string>()));
	let list = lists.get(db.dialect);
	if (list === undefined) {
		const dates = new Set<string>(table.dates);
		list = Object.entries(table.columns as Record<string, string>)
			.map(([property, column]) => `${dates.has(property) ? db.isoText(`t.${column}`) : `t.${column}`} AS "${property}"`)
			.join(', ');
		lists.set(db.dialect, list);
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
	const columns = selectList(database(), table);
	const sql =
		offset < DEFERRED_JOIN_FROM_OFFSET
			? `SELECT ${columns} FROM ${table.name} t WHERE ${scoped(table, where)} ORDER BY ${orderOf(table)} LIMIT ${limitParam} OFFSET ${skip}`
			: `SELECT ${columns} FROM ${table.name} t JOIN (SELECT id FROM ${table.name} WHERE ${scoped(table, where)} ` +
				`ORDER BY ${orderOf(table)} LIMIT ${limitParam} OFFSET ${skip}) page ON page.id = t.id ORDER BY ${orderOf(table, 't.')}`;
	return database().read<R & object>(sql, params);
}

/** How many rows `where` selects, counted (for filters no counter keeps: see db/list-counts.ts). */
export async function countRows<R>(table: Table<R>, where: Where): Promise<number> {
	const sql = `SELECT count(*) AS n FROM ${table.name} WHERE ${scoped(table, where)}`;
	const [row] = await database().read<{ n: number | string }>(sql, where.params);
	return Number(row.n);
}

/**
 * A page that a statement of the caller's chooses (a broad search: search/pages.ts). `pageIds`
 * is SQL yielding the page's ids as `id`, after the common table expressions in `ctes` (which
 * may be ''); `extra` is a scalar SQL expression read along (a count), null when the page is
 * empty. The rows are read by primary key and come back in list order.
 */
export async function readChosenPage<R>(
	table: Table<R>,
	statement: { ctes: string; pageIds: string; extra: string },
	params: readonly unknown[],
): Promise<{ rows: R[]; extra: number | null }> {
	const sql =
		`${statement.ctes} SELECT ${selectList(database(), table)}, ${statement.extra} AS "extra" FROM ${table.name} t ` +
		`JOIN (${statement.pageIds}) page ON page.id = t.id ORDER BY ${orderOf(table, 't.')}`;
	const rows = await database().read<R & { extra?: number | string | null }>(sql, params);
	const extra = rows.length === 0 || rows[0].extra === null ? null : Number(rows[0].extra);
	for (const row of rows) delete row.extra;
	return { rows, extra };
}

/** The row with this id in this organization, or undefined. */
export async function readOne<R>(table: Table<R>, organizationId: string, id: string): Promise<R | undefined> {
	const always = table.always ? ` AND ${table.always}` : '';
	const sql = `SELECT ${selectList(database(), table)} FROM ${table.name} t WHERE t.id = $1 AND t.organization_id = $2${always}`;
	const [row] = await database().read<R & object>(sql, [id, organizationId]);
	return row;
}
