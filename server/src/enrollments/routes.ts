import { batchOf } from '../http/batch';
import { BATCH_BODY_LIMIT } from '../http/json-body';
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
	// Up to 100 POST /enrollments in one request (SPEC §18). Before /enrollments/:id, which would
	// otherwise take the path (and answer 405).
	'/enrollments/batch': {
		post: { scope: 'write:enrollments', write: batchOf(createEnrollment), bodyLimit: BATCH_BODY_LIMIT },
	},
	'/enrollments/:id': {
		get: { scope: 'read:enrollments', handlers: [getEnrollment] },
		patch: { scope: 'write:enrollments', write: updateEnrollment },
	},
};
