import { database } from '../db/current';
import { orderOf, type Table } from '../db/table';
import type { SearchKind } from './words';

/**
 * The SQL of searches (search/words.ts, search/pages.ts). A search is a range over the primary
 * key of search_words, (organization_id, kind, word, record_id): `word >= from AND word < to`.
 */

/** Placeholders of one search: the organization, the range's start and, unless open-ended, its end. */
export interface RangeParams {
	org: string;
	from: string;
	to?: string;
}

/** The ids of the records of `kind` with a text in the range (a record may come more than once). */
export function matchingIdsSql(kind: SearchKind, { org, from, to }: RangeParams): string {
	return `SELECT record_id FROM search_words WHERE organization_id = ${org} AND kind = '${kind}' AND word >= ${from}${to === undefined ? '' : ` AND word < ${to}`}`;
}

/**
 * How many records of `kind` match: the index alone answers, no record is read. Exact because
 * each record's texts are written and removed with the record in one transaction (words.ts).
 */
export function countMatchingSql(kind: SearchKind, range: RangeParams): string {
	return `SELECT count(DISTINCT record_id) AS n FROM (${matchingIdsSql(kind, range)}) m`;
}

/** Up to `limit` distinct matching ids. */
export function distinctMatchingSql(kind: SearchKind, range: RangeParams, limit: string): string {
	return `SELECT DISTINCT record_id AS id FROM (${matchingIdsSql(kind, range)}) m LIMIT ${limit}`;
}

/**
 * A page of matching records found by walking the first `window` entries of the organization's
 * list-order index (organization_id, created_at, id), which holds the ids, and keeping those in
 * the matches: a broad search finds its page early in the walk, reading no record it does not
 * show. The walk is bounded, so the caller checks that the window held the page. With `narrowing`
 * (users: a role) the walk is that of the (organization_id, column, created_at, id) index, the
 * rows with that value in list order.
 */
export function walkedPageSql<R>(
	table: Table<R>,
	kind: SearchKind,
	range: RangeParams,
	p: { window: string; limit: string; offset: string },
	narrowing?: { column: string; value: string },
): { ctes: string; pageIds: string; extra: string } {
	const narrowed = narrowing === undefined ? '' : ` AND ${narrowing.column} = ${narrowing.value}`;
	const walk = `SELECT created_at, id FROM ${table.name} WHERE organization_id = ${range.org}${narrowed} ORDER BY ${orderOf(table)} LIMIT ${p.window}`;
	return {
		ctes: '',
		pageIds: `SELECT id FROM (${walk}) w WHERE id IN (${matchingIdsSql(kind, range)}) ORDER BY ${orderOf(table)} LIMIT ${p.limit} OFFSET ${p.offset}`,
		extra: 'NULL',
	};
}

/**
 * How many records of `kind` match among the organization's rows of `table` whose `column` is
 * one of `values`: the rows with those values are read from the (organization_id, column, …)
 * index, so this is quick when they are few (search/pages.ts: the users of the other roles).
 */
export function countMatchingAmongSql(kind: SearchKind, table: string, column: string, values: string[], range: RangeParams): string {
	return (
		`SELECT count(*) AS n FROM ${table} WHERE organization_id = ${range.org} AND ${column} IN (${values.join(', ')}) ` +
		`AND id IN (${matchingIdsSql(kind, range)})`
	);
}

/**
 * The page of a search over a table whose rows name a person and a course (enrollments,
 * certificates): the rows whose person matches, and those of the matching courses.
 *
 * - The person's side (`a`) is read once from the (organization_id, person, created_at, id)
 *   index alone, one probe per matching person; it gives its count and its first `limit` rows.
 *   When courses match too, it also reads each row's course, so that the rows of matching
 *   courses are counted on the course side only.
 * - Each matching course gives its first `limit` rows straight from the (organization_id,
 *   course_id, created_at, id) index, which is in list order: no course is read whole.
 * - The first `limit` rows of the union are among the union of each side's first `limit`; the
 *   page is cut from those.
 *
 * `extra` is the count of the person's side (less the rows of matching courses).
 */
export function personAndCoursePageSql<R>(
	table: Table<R>,
	columns: { person: string; course: string },
	range: RangeParams,
	courses: string[],
	p: { limit: string; perPage: string; offset: string },
): { ctes: string; pageIds: string; extra: string } {
	const order = orderOf(table);
	const byPerson = courses.length === 0 ? 'created_at, id' : `created_at, id, ${columns.course}`;
	const ctes = `WITH a AS MATERIALIZED (${personSide(table, columns, range, byPerson)})`;
	const sides = [
		`SELECT created_at, id FROM (SELECT created_at, id FROM a ORDER BY ${order} LIMIT ${p.limit}) s`,
		...courses.map(
			(course, i) =>
				`SELECT created_at, id FROM (SELECT created_at, id FROM ${table.name} WHERE organization_id = ${range.org} AND ${columns.course} = ${course} ORDER BY ${order} LIMIT ${p.limit}) c${i}`,
		),
	];
	return {
		ctes,
		pageIds: `SELECT id FROM (${sides.join(' UNION ')}) u ORDER BY ${order} LIMIT ${p.perPage} OFFSET ${p.offset}`,
		extra: personSideCount(columns, courses),
	};
}

/**
 * The rows of the matching persons, one index probe per person. SQLite plans `IN (…)` that way.
 * PostgreSQL, estimating thousands of persons, would rather join them to the whole table read
 * in parallel; given the persons as one array (`= ANY(ARRAY(…))`, a value computed once, of a few
 * elements as far as the planner can tell) it probes the index once per element, which it sorts
 * and rids of duplicates (a person matched by two texts counts once), with no join, no hashing
 * and no parallel workers: 87 against 123 ms p50 (38 against 58 at best) for 11,111 persons among
 * 1,000,000 (load 9), against the same probes made through a `LATERAL` subquery per person.
 */
function personSide<R>(table: Table<R>, columns: { person: string }, range: RangeParams, select: string): string {
	const persons = matchingIdsSql('user', range);
	const matching = database().dialect === 'postgres' ? `= ANY(ARRAY(${persons}))` : `IN (${persons})`;
	return `SELECT ${select} FROM ${table.name} WHERE organization_id = ${range.org} AND ${columns.person} ${matching}`;
}

/** The count of the person's side alone (a page past the end has no row to carry it). */
export function personSideCountSql(ctes: string, columns: { person: string; course: string }, courses: string[]): string {
	return `${ctes} SELECT ${personSideCount(columns, courses)} AS n`;
}

function personSideCount(columns: { course: string }, courses: string[]): string {
	return `(SELECT count(*) FROM a${courses.length === 0 ? '' : ` WHERE ${columns.course} NOT IN (${courses.join(', ')})`})`;
}
