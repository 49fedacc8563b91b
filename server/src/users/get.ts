import { getEndpoint } from '../http/get-one';
import { User } from './model';
import { serializeUser } from './serialize';

/** GET /api/v1/users/{id} */
export const getUser = getEndpoint({ model: User, idKind: 'user', noun: 'user', serialize: serializeUser });
