import { getEndpoint } from '../http/get-one';
import { USERS } from './queries';
import { serializeUser } from './serialize';

/** GET /api/v1/users/{id} */
export const getUser = getEndpoint({ table: USERS, idKind: 'user', noun: 'user', serialize: serializeUser });
