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
	const [row] = await database().rows<{ n: number | string }>(COUNTED, [organizationId, list, filter]);
	return row === undefined ? 0 : Number(row.n);
}

/** `key=value` pairs of the given filters joined with '&', in the order named. */
export function counterFilter(pairs: Array<[key: string, value: string | undefined]>): string {
	return pairs
		.filter(([, value]) => value !== undefined)
		.map(([key, value]) => `${key}=${value}`)
		.join('&');
}
