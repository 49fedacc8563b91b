import { getEndpoint } from '../http/get-one';
import { COURSES } from './queries';
import { serializeCourse } from './serialize';

/** GET /api/v1/courses/{id}: a draft answers 404 like a course that does not exist. */
export const getCourse = getEndpoint({ table: COURSES, idKind: 'course', noun: 'course', serialize: serializeCourse });
