import type { RouteTable } from '../http/routes';
import { getUser } from './get';
import { listUsers } from './list';

export const userRoutes: RouteTable = {
	'/users': { get: { scope: 'read:users', handlers: [listUsers] } },
	'/users/:id': { get: { scope: 'read:users', handlers: [getUser] } },
};
