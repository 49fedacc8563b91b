import type { Sequelize } from 'sequelize';

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

export async function countedTotal(sequelize: Sequelize, organizationId: string, { list, filter }: Counter): Promise<number> {
	const [row] = (await sequelize.query('SELECT n FROM list_counts WHERE organization_id = ? AND list = ? AND filter = ?', {
		replacements: [organizationId, list, filter],
		type: 'SELECT',
	})) as Array<{ n: number | string }>;
	return row === undefined ? 0 : Number(row.n);
}

/** `key=value` pairs of the given filters joined with '&', in the order named. */
export function counterFilter(pairs: Array<[key: string, value: string | undefined]>): string {
	return pairs
		.filter(([, value]) => value !== undefined)
		.map(([key, value]) => `${key}=${value}`)
		.join('&');
}
