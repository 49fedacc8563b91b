import type { Transaction } from 'sequelize';

import { database } from '../db/current';

import { hasControlCharacters } from '../common/text';
import type { Where } from '../db/where';
import { matchingIdsSql } from './queries';

/**
 * Prefix search (SPEC §13) through an index, never a scan: `search_words` holds, per record, the
 * lower-cased texts a search may start with, and a search is a range over its primary key
 * (`word >= text AND word < next(text)`), so nothing the caller typed is ever a LIKE pattern.
 *
 * The texts of a name or title are its suffixes from each word start ("ada lovelace",
 * "lovelace"): a word starts with a one-word search exactly when such a suffix does, and a
 * search of several words ("ada love") still finds the name. A user's e-mail is one more text.
 */

export type SearchKind = 'user' | 'course';

/** Texts are compared lower-cased with runs of white space as one space, on both sides. */
export function normalize(text: string): string {
	return text.toLowerCase().replace(/\s+/gu, ' ');
}

/** The suffixes of `text` that start at a word. */
export function wordSuffixes(text: string): string[] {
	const words = normalize(text).trim().split(' ').filter((w) => w !== '');
	return words.map((_, i) => words.slice(i).join(' '));
}

/**
 * The smallest string greater than every string starting with `prefix`, in code point order
 * (SQLite's BINARY and PostgreSQL's "C" collation on UTF-8 both compare that way); null when
 * there is none (only U+10FFFF characters).
 */
function nextPrefix(prefix: string): string | null {
	const points = Array.from(prefix).map((c) => c.codePointAt(0)!);
	while (points.length > 0) {
		const last = points.pop()!;
		if (last < 0x10ffff) {
			points.push(last === 0xd7ff ? 0xe000 : last + 1);
			return String.fromCodePoint(...points);
		}
	}
	return null;
}

export interface Searchable {
	id: string;
	organizationId: string;
}

/**
 * Writes the search texts of new records, in the transaction that creates them. Called by the
 * User and Course model hooks, so every path that creates one (API, CLI, seed, demo activity)
 * keeps the index.
 */
export async function indexRecords(
	kind: SearchKind,
	records: Array<Searchable & { texts: string[] }>,
	transaction: Transaction | null | undefined,
): Promise<void> {
	const rows = records.flatMap((r) =>
		[...new Set(r.texts.filter((t) => t !== ''))].map((word) => ({ organization_id: r.organizationId, kind, word, record_id: r.id })),
	);
	// Chunks keep each statement far below SQLite's and PostgreSQL's bound-parameter limits.
	for (let i = 0; i < rows.length; i += 5_000) {
		await database().sequelize.getQueryInterface().bulkInsert('search_words', rows.slice(i, i + 5_000), { transaction: transaction ?? undefined });
	}
}

/**
 * Takes a record's old texts out of the index (a renamed user), row by row through the primary
 * key: the texts are known, so no scan of the organization's words is needed.
 */
export async function unindexRecord(
	kind: SearchKind,
	record: Searchable & { texts: string[] },
	transaction: Transaction | null | undefined,
): Promise<void> {
	const words = [...new Set(record.texts.filter((t) => t !== ''))];
	if (words.length === 0) return;
	await database().run(
		`DELETE FROM search_words WHERE organization_id = $1 AND kind = $2 AND record_id = $3 AND word IN (${words.map((_, i) => `$${i + 4}`).join(', ')})`,
		[record.organizationId, kind, record.id, ...words],
		transaction ?? undefined,
	);
}

/**
 * The conditions of a search: records of `kind` in `organizationId` with a text starting with
 * `search`, i.e. `id IN (SELECT record_id FROM search_words WHERE …range…)`, served by the
 * primary key (organization_id, kind, word, record_id). The list's count uses the same where,
 * so totals are exact.
 *
 * The organization is also checked on the record itself, written `organization_id || ''` on
 * purpose: that keeps the check from using the (organization_id, created_at, id) indexes, which
 * SQLite would otherwise walk through the whole organization in list order, testing each row
 * against the matches (625 ms on 1,000,000 users, bench/search.ts). This way both databases
 * start from the matches and sort only those.
 */
export function searchCondition(where: Where, kind: SearchKind, organizationId: string, search: string): void {
	const range = searchRange(where, organizationId, search);
	if (range === undefined) return;
	where.and((org, from, to) => `id IN (${matchingIdsSql(kind, { org, from, to })})`, organizationId, ...range);
}

/**
 * The range of words a search covers: `[text]` or `[text, next prefix]`. Control characters
 * never occur in names, titles or e-mails (they are refused on write), and PostgreSQL refuses
 * NUL in a text parameter: such a search matches nothing (undefined).
 */
export function prefixRange(search: string): [from: string, to?: string] | undefined {
	const text = normalize(search);
	if (hasControlCharacters(text)) return undefined;
	const upper = nextPrefix(text);
	return upper === null ? [text] : [text, upper];
}

/**
 * What both searches start with: the organization checked on the record itself (see
 * searchCondition), and the range of words (prefixRange); a search that matches nothing adds FALSE.
 */
function searchRange(where: Where, organizationId: string, search: string): [from: string, to?: string] | undefined {
	where.and((p) => `organization_id || '' = ${p}`, organizationId);
	const range = prefixRange(search);
	if (range === undefined) where.and(() => 'FALSE');
	return range;
}

/** A column of a list's table that holds the id of a searchable record (an enrollment's student_id). */
export interface SearchReference {
	column: string;
	kind: SearchKind;
}

/**
 * The conditions of a search over records that have no text of their own (enrollments,
 * certificates): those whose student's name or e-mail, or whose course's title, starts with
 * `search`. Each reference is one range over search_words, then the (organization_id, column, …)
 * index of `table`; their union is matched by id, and the organization is checked on the record
 * in the form that keeps the planner off the list-order index, as in searchCondition, so a rare
 * text never walks the whole organization.
 */
export function referenceSearchCondition(where: Where, table: string, references: SearchReference[], organizationId: string, search: string): void {
	const range = searchRange(where, organizationId, search);
	if (range === undefined) return;
	where.and(
		(org, from, to) => {
			const parts = references.map(
				({ column, kind }) => `SELECT id FROM ${table} WHERE organization_id = ${org} AND ${column} IN (${matchingIdsSql(kind, { org, from, to })})`,
			);
			return `id IN (${parts.join(' UNION ')})`;
		},
		organizationId,
		...range,
	);
}
