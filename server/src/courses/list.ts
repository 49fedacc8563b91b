import { listEndpoint } from '../http/list';
import { searchParam } from '../search/param';
import { searchWhere } from '../search/words';
import { Course } from './model';
import { serializeCourse } from './serialize';
import { PUBLISHED } from './visibility';

/** GET /api/v1/courses: the organization's published courses; `search` matches a word of the title. */
export const listCourses = listEndpoint<Course, { search: string }>({
	model: Course,
	filters: { search: searchParam() },
	where: (organizationId, { search }) => ({
		...(search !== undefined ? searchWhere(Course.sequelize!, 'course', organizationId, search) : { organizationId }),
		...PUBLISHED,
	}),
	serialize: serializeCourse,
	counter: ({ search }) => (search === undefined ? { list: 'courses', filter: '' } : undefined),
});
