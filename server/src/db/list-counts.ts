import { database } from './index';

/**
 * A list's exact total from the counters the 0009 migration's triggers keep (list_counts), for
 * the filter combinations they count; a list that has no row for an organization has 0 rows.
 */
export interface Counter {
	/** The counted table, which is also the list's name in list_counts. */
	list: 'users' | 'courses' | 'enrollments' | 'certificates';
	/** The counted filters in the migration's order, e.g. 'course=crs_1&status=active'; '' for none. */
	filter: string;
}

const COUNTED = 'SELECT n FROM list_counts WHERE organization_id = $1 AND list = $2 AND filter = $3';

export async function countedTotal(organizationId: string, { list, filter }: Counter): Promise<number> {
	const [row] = await database().read<{ n: number | string }>(COUNTED, [organizationId, list, filter]);
	return row === undefined ? 0 : Number(row.n);
}

/** The sum of several counters of one list (the enrollments of several courses: search/pages.ts). */
export async function countedTotals(organizationId: string, list: Counter['list'], filters: string[]): Promise<number> {
	if (filters.length === 0) return 0;
	const sql = `SELECT coalesce(sum(n), 0) AS n FROM list_counts WHERE organization_id = $1 AND list = $2 AND filter IN (${filters.map((_, i) => `$${i + 3}`).join(', ')})`;
	const [row] = await database().read<{ n: number | string }>(sql, [organizationId, list, ...filters]);
	return Number(row.n);
}

/** `key=value` pairs of the given filters joined with '&', in the order named. */
export function counterFilter(pairs: Array<[key: string, value: string | undefined]>): string {
	return pairs
		.filter(([, value]) => value !== undefined)
		.map(([key, value]) => `${key}=${value}`)
		.join('&');
}
