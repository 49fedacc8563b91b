import { readCourseSummaries } from '../courses/queries';
import type { Expansion } from '../db/table';
import type { SearchReference } from '../search/words';
import { readUserSummaries } from '../users/queries';

/**
 * What enrollments and certificates share for pickers: they are named by their student and
 * course, so a search looks at those (search/words.ts) and `expand` embeds them.
 */
export const STUDENT_AND_COURSE: SearchReference[] = [
	{ column: 'student_id', kind: 'user' },
	{ column: 'course_id', kind: 'course' },
];

/** The same columns as search/pages.ts names them: the person a row names, and its course. */
export const STUDENT_AND_COURSE_COLUMNS = { person: 'student_id', course: 'course_id' };

export function studentAndCourseExpansions<R extends { studentId: string; courseId: string }>(): Record<string, Expansion<R>> {
	return {
		student: { idOf: (row) => row.studentId, read: readUserSummaries, shows: '{id, name, email}' },
		course: { idOf: (row) => row.courseId, read: readCourseSummaries, shows: '{id, title}' },
	};
}
