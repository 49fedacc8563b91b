import { database } from '../db';
import type { Read, Table } from '../db/table';
import type { Where } from '../db/where';
import { searchCondition } from '../search/words';
import type { Course } from './model';

export type CourseRow = Read<Pick<Course, 'id' | 'title' | 'description' | 'status' | 'publishedAt' | 'createdAt' | 'updatedAt'>>;

/** The API shows published courses only: a draft is invisible (404), not forbidden. */
export const COURSES: Table<CourseRow> = {
	name: 'courses',
	columns: {
		id: 'id',
		title: 'title',
		description: 'description',
		status: 'status',
		publishedAt: 'published_at',
		createdAt: 'created_at',
		updatedAt: 'updated_at',
	},
	dates: ['publishedAt', 'createdAt', 'updatedAt'],
	always: "status = 'published'",
};

/** `search` keeps courses a word of whose title starts with it (search/words.ts). */
export function courseConditions(where: Where, organizationId: string, { search }: { search?: string }): void {
	if (search !== undefined) searchCondition(where, 'course', organizationId, search);
}

/** What a list embeds of a course (`expand=course`). */
export interface CourseSummary {
	id: string;
	title: string;
}

/**
 * The published courses with these ids in the organization (a draft is invisible to the API, here
 * too: null), read by primary key: `organization_id || ''` keeps SQLite off the organization's
 * list index, as for the students (users/queries.ts readUserSummaries).
 */
export async function readCourseSummaries(organizationId: string, ids: string[]): Promise<CourseSummary[]> {
	if (ids.length === 0) return [];
	return database().read<CourseSummary>(
		`SELECT id, title FROM courses WHERE organization_id || '' = $1 AND status = 'published' AND id IN (${ids.map((_, i) => `$${i + 2}`).join(', ')})`,
		[organizationId, ...ids],
	);
}
