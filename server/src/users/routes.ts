import { batchOf } from '../http/batch';
import { BATCH_BODY_LIMIT } from '../http/json-body';
import type { RouteTable } from '../http/routes';
import { createUserEndpoint } from './create';
import { getUser } from './get';
import { listUsers } from './list';
import { updateUser } from './update';

export const userRoutes: RouteTable = {
	'/users': {
		get: { scope: 'read:users', handlers: [listUsers] },
		post: { scope: 'write:users', write: createUserEndpoint },
	},
	// Up to 100 POST /users in one request (SPEC §18). Before /users/:id, which would otherwise
	// take the path (and answer 405).
	'/users/batch': {
		post: { scope: 'write:users', write: batchOf(createUserEndpoint), bodyLimit: BATCH_BODY_LIMIT },
	},
	'/users/:id': {
		get: { scope: 'read:users', handlers: [getUser] },
		patch: { scope: 'write:users', write: updateUser },
	},
};
