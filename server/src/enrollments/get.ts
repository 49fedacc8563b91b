import { getEndpoint } from '../http/get-one';
import { ENROLLMENTS } from './queries';
import { serializeEnrollment } from './serialize';

/** GET /api/v1/enrollments/{id} */
export const getEnrollment = getEndpoint({ table: ENROLLMENTS, idKind: 'enrollment', noun: 'enrollment', serialize: serializeEnrollment });
