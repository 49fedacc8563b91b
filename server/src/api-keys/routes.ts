import type { RouteTable } from '../http/routes';
import { getCurrentKey } from './get';

export const apiKeyRoutes: RouteTable = {
	'/key': { get: { scope: 'any-key', handlers: [getCurrentKey] } },
};
