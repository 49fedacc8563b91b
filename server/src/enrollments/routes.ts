import type { RouteTable } from '../http/routes';
import { createEnrollment } from './create';
import { getEnrollment } from './get';
import { listEnrollments } from './list';
import { updateEnrollment } from './update';

export const enrollmentRoutes: RouteTable = {
	'/enrollments': {
		get: { scope: 'read:enrollments', handlers: [listEnrollments] },
		post: { scope: 'write:enrollments', write: createEnrollment },
	},
	'/enrollments/:id': {
		get: { scope: 'read:enrollments', handlers: [getEnrollment] },
		patch: { scope: 'write:enrollments', write: updateEnrollment },
	},
};
