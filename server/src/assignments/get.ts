import { getEndpoint } from '../http/get-one';
import { ASSIGNMENTS } from './queries';
import { serializeAssignment } from './serialize';

/** GET /api/v1/assignments/{id} */
export const getAssignment = getEndpoint({ table: ASSIGNMENTS, idKind: 'assignment', noun: 'assignment', serialize: serializeAssignment });
