import { database } from '../db';
import { countedTotal, countedTotals, type Counter } from '../db/list-counts';
import { readChosenPage, type PageRequest, type Table } from '../db/table';
import { Where } from '../db/where';
import { countMatchingAmongSql, countMatchingSql, distinctMatchingSql, personAndCoursePageSql, personSideCountSql, walkedPageSql, type RangeParams } from './queries';
import { prefixRange, type SearchKind } from './words';

/**
 * Pages of broad searches (issue 29: a picker's short prefix matches tens of thousands of
 * records) with the same items and the same exact total as the general list read (http/list.ts,
 * db/table.ts), which reads every match to count and sort them. Here neither reads a match it
 * does not show: totals come from indexes and counters, and each page is cut from the first rows
 * of index walks that are already in list order.
 *
 * Each function answers `undefined` where it does not apply (or would not be faster), and the
 * general read serves the request; `{ total }` without rows leaves only the page to it.
 */
export interface SearchRead<R> {
	total: number;
	rows?: R[];
}

/** The list order's walk of the organization's index stops after this many entries. */
const WALK_WINDOW = 50_000;
/** The first walk reads at least this many entries. */
const MIN_WALK = 1_000;

/**
 * One more filter a search may come with: a column of the searched table whose counters
 * (db/list-counts.ts, filter `column=value`) and (organization_id, column, created_at, id) index
 * exist, and which takes one of a few known values (users: the role, which the Students picker
 * sends).
 */
export interface Narrowing {
	column: string;
	value: string;
	/** Every other value the column takes. */
	others: readonly string[];
}

/** Rows of some values, read one by one to count the matches among them, before a narrowed search is left to the general read. */
const MAX_AMONG = 20_000;

/**
 * Users searched by their own texts, maybe narrowed (a role). The total is counted in the search
 * index alone. Narrowed, it is counted among the rows of the value, or it is the search's total
 * less the matches among the rows of the other values (an organization's instructors and
 * administrators beside its students), whichever rows are fewer, read from the value's index:
 * no match is read. The page is found by walking the (organization_id, created_at, id) index
 * (narrowed: that of the value) and keeping the matches, when the matches are many enough that
 * the page should lie well inside the walk's window (spread evenly, the page's last match lies at
 * `(offset + per_page) × listed / total`); a few matches are quicker to read and sort (the
 * general read). If the window holds too few matches (they cluster late in the list), the
 * general read gives the page.
 */
export async function ownTextSearchPage<R>(
	table: Table<R>,
	kind: SearchKind,
	organizationId: string,
	search: string,
	list: Counter['list'],
	{ page, perPage }: PageRequest,
	narrowing?: Narrowing,
): Promise<SearchRead<R> | undefined> {
	const range = prefixRange(search);
	if (range === undefined) return { total: 0, rows: [] };
	const filter = (value?: string) => (value === undefined ? '' : `${narrowing!.column}=${value}`);
	const listed = await countedTotal(organizationId, { list, filter: filter(narrowing?.value) });
	const where = new Where();
	const params = rangeParams(where, organizationId, range);
	const countAmong = async (values: readonly string[]) => {
		const placeholders = values.map((_, i) => `$${where.params.length + i + 1}`);
		const sql = countMatchingAmongSql(kind, table.name, narrowing!.column, placeholders, params);
		const [{ n }] = await database().read<{ n: number | string }>(sql, [...where.params, ...values]);
		return Number(n);
	};
	const countAll = async () => Number((await database().read<{ n: number | string }>(countMatchingSql(kind, params), where.params))[0].n);
	let total: number;
	if (narrowing === undefined) {
		total = await countAll();
	} else {
		const others = await countedTotals(organizationId, list, narrowing.others.map(filter));
		// A value no counter of `others` names (written around the model) would count as this one: then only the value's own rows tell.
		const complete = listed + others === (await countedTotal(organizationId, { list, filter: '' }));
		if (complete && others < listed) {
			if (others > MAX_AMONG) return undefined;
			total = await countAll();
			if (total > 0 && others > 0) total -= await countAmong(narrowing.others);
		} else {
			if (listed > MAX_AMONG) return undefined;
			total = await countAmong([narrowing.value]);
		}
	}
	const offset = (page - 1) * perPage;
	if (total === 0 || offset >= total) return { total, rows: [] };
	const expectedWalk = ((offset + perPage) * listed) / total;
	if (expectedWalk > WALK_WINDOW / 4) return { total };
	const narrowed = narrowing === undefined ? undefined : { column: narrowing.column, value: where.param(narrowing.value) };
	const windowAt = where.params.length;
	const sql = walkedPageSql(table, kind, params, { window: where.param(WALK_WINDOW), limit: where.param(perPage), offset: where.param(offset) }, narrowed);
	const walk = async (window: number) => {
		const { rows } = await readChosenPage(table, sql, where.params.map((value, i) => (i === windowAt ? window : value)));
		return rows.length === perPage || offset + rows.length === total ? rows : undefined;
	};
	// The walk reads its whole window (the matches are hashed, then the window's entries looked up
	// in them): four times the expected walk leaves room for matches spread unevenly, and the
	// whole window is tried before the general read. The Students picker's 1 % on PostgreSQL:
	// 18,000 entries instead of 50,000, 71 against 97 ms p50 at load 10.
	const first = Math.min(WALK_WINDOW, Math.max(MIN_WALK, Math.ceil(4 * expectedWalk)));
	const rows = (await walk(first)) ?? (first < WALK_WINDOW ? await walk(WALK_WINDOW) : undefined);
	return rows === undefined ? { total } : { total, rows };
}

/** Courses that may match before a search is left to the general read (one index walk each). */
const MAX_MATCHING_COURSES = 20;
/** Deeper than this (offset + per_page), each side's first rows are too many to merge. */
const MAX_MERGED_ROWS = 5_000;

/**
 * Enrollments or certificates searched by their student's texts and their course's title:
 * the total is the count of the students' side (their rows read from an index alone, course
 * included only when courses match too) plus the matching courses' counters (db/list-counts.ts),
 * and the page is cut from each side's first rows (search/queries.ts personAndCoursePageSql).
 */
export async function personAndCourseSearchPage<R>(
	table: Table<R>,
	list: Counter['list'],
	columns: { person: string; course: string },
	organizationId: string,
	search: string,
	{ page, perPage }: PageRequest,
): Promise<SearchRead<R> | undefined> {
	const range = prefixRange(search);
	if (range === undefined) return { total: 0, rows: [] };
	const offset = (page - 1) * perPage;
	if (offset + perPage > MAX_MERGED_ROWS) return undefined;
	const where = new Where();
	const params = rangeParams(where, organizationId, range);
	const coursesSql = distinctMatchingSql('course', params, `$${where.params.length + 1}`);
	const courses = (await database().read<{ id: string }>(coursesSql, [...where.params, MAX_MATCHING_COURSES + 1])).map((r) => r.id);
	if (courses.length > MAX_MATCHING_COURSES) return undefined;
	const byCourse = courses.length === 0 ? 0 : await countedTotals(organizationId, list, courses.map((id) => `course=${id}`));
	const coursePlaceholders = courses.map((id) => where.param(id));
	const countParams = [...where.params];
	const sql = personAndCoursePageSql(table, columns, params, coursePlaceholders, {
		limit: where.param(offset + perPage),
		perPage: where.param(perPage),
		offset: where.param(offset),
	});
	const { rows, extra } = await readChosenPage(table, sql, where.params);
	let byPerson = extra;
	if (byPerson === null) {
		// No row: nothing matches at all (page 1), or the page lies past the end and the total is still owed.
		if (page === 1) return { total: 0, rows };
		const [{ n }] = await database().read<{ n: number | string }>(personSideCountSql(sql.ctes, columns, coursePlaceholders), countParams);
		byPerson = Number(n);
	}
	return { total: byPerson + byCourse, rows };
}

function rangeParams(where: Where, organizationId: string, [from, to]: [string, string?]): RangeParams {
	return { org: where.param(organizationId), from: where.param(from), to: to === undefined ? undefined : where.param(to) };
}
