import type { RouteTable } from '../http/routes';
import { getCourseCompletion } from './get-course-completion';

export const reportRoutes: RouteTable = {
	'/reports/course_completion': { get: { scope: 'read:enrollments', handlers: [getCourseCompletion] } },
};
