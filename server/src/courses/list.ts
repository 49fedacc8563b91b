import { listEndpoint } from '../http/list';
import { Course } from './model';
import { serializeCourse } from './serialize';
import { PUBLISHED } from './visibility';

/** GET /api/v1/courses: the organization's published courses. */
export const listCourses = listEndpoint<Course, Record<string, never>>({
	model: Course,
	filters: {},
	where: (organizationId) => ({ organizationId, ...PUBLISHED }),
	serialize: serializeCourse,
});
