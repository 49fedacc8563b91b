import type { RouteTable } from '../http/routes';
import { getCourse } from './get';
import { listCourses } from './list';

export const courseRoutes: RouteTable = {
	'/courses': { get: { scope: 'read:courses', handlers: [listCourses] } },
	'/courses/:id': { get: { scope: 'read:courses', handlers: [getCourse] } },
};
