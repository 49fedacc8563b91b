import type { RouteTable } from '../http/routes';
import { getEvent, getFeedHead } from './get';
import { listEvents } from './list';

/** Each event type needs its own scope (SPEC §11), so the handlers check scopes themselves. */
export const eventRoutes: RouteTable = {
	'/events': { get: { scope: 'by-handler', handlers: [listEvents] } },
	// Before /events/:id, which would otherwise take `head` for an event id.
	'/events/head': { get: { scope: 'by-handler', handlers: [getFeedHead] } },
	'/events/:id': { get: { scope: 'by-handler', handlers: [getEvent] } },
};
