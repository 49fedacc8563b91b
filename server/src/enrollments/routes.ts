import { collectionRoutes } from '../http/routes';
import { createEnrollment, enrollmentBatchOptions, readForItems } from './create';
import { getEnrollment } from './get';
import { listEnrollments } from './list';
import { updateEnrollment } from './update';

export const enrollmentRoutes = collectionRoutes('/enrollments', 'read:enrollments', 'write:enrollments', {
	list: listEnrollments,
	create: createEnrollment,
	get: getEnrollment,
	update: updateEnrollment,
	readForBatch: readForItems,
	batchOptions: enrollmentBatchOptions,
});
