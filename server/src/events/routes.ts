import type { RouteTable } from '../http/routes';
import { getEvent } from './get';
import { listEvents } from './list';

/** Each event type needs its own scope (SPEC §11), so the handlers check scopes themselves. */
export const eventRoutes: RouteTable = {
	'/events': { get: { scope: 'by-handler', handlers: [listEvents] } },
	'/events/:id': { get: { scope: 'by-handler', handlers: [getEvent] } },
};
