import { collectionRoutes } from '../http/routes';
import { createUserEndpoint } from './create';
import { getUser } from './get';
import { listUsers } from './list';
import { updateUser } from './update';

export const userRoutes = collectionRoutes('/users', 'read:users', 'write:users', { list: listUsers, create: createUserEndpoint, get: getUser, update: updateUser });
