import { getEndpoint } from '../http/get-one';
import { Enrollment } from './model';
import { serializeEnrollment } from './serialize';

/** GET /api/v1/enrollments/{id} */
export const getEnrollment = getEndpoint({
	model: Enrollment,
	idKind: 'enrollment',
	noun: 'enrollment',
	serialize: serializeEnrollment,
});
