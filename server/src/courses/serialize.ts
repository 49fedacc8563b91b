import { iso } from '../common/time';
import type { CourseRow } from './queries';

/** Only published courses ever reach the API, so `status` is always `published` here. */
export function serializeCourse(course: CourseRow) {
	return {
		id: course.id,
		title: course.title,
		description: course.description,
		status: course.status,
		published_at: iso(course.publishedAt),
		created_at: iso(course.createdAt),
		updated_at: iso(course.updatedAt),
	};
}
