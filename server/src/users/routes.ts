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
	'/users/:id': {
		get: { scope: 'read:users', handlers: [getUser] },
		patch: { scope: 'write:users', write: updateUser },
	},
};
