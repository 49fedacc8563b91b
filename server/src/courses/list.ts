import { listEndpoint } from '../http/list';
import { searchParam } from '../search/param';
import { COURSES, courseConditions, type CourseRow } from './queries';
import { serializeCourse } from './serialize';

/** GET /api/v1/courses: the organization's published courses; `search` matches a word of the title. */
export const listCourses = listEndpoint<CourseRow, { search: string }>({
	table: COURSES,
	filters: { search: searchParam() },
	scopesItself: ({ search }) => search !== undefined,
	where: (where, filters, organizationId) => courseConditions(where, organizationId, filters),
	serialize: serializeCourse,
	counter: ({ search }) => (search === undefined ? { list: 'courses', filter: '' } : undefined),
});
