import { getEndpoint } from '../http/get-one';
import { Course } from './model';
import { serializeCourse } from './serialize';
import { PUBLISHED } from './visibility';

/** GET /api/v1/courses/{id}: a draft answers 404 like a course that does not exist. */
export const getCourse = getEndpoint({
	model: Course,
	idKind: 'course',
	noun: 'course',
	where: PUBLISHED,
	serialize: serializeCourse,
});
