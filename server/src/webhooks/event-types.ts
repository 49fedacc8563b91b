import type { Scope } from '../api-keys/model';
import { EVENT_TYPES, typesVisibleTo } from '../events/types';

/** The event types of the feed (SPEC §11) that an endpoint may subscribe to, or `*` for all. */
export const WEBHOOK_EVENT_TYPES = EVENT_TYPES;

export const ALL_EVENTS = '*';

/** True when an endpoint subscribed to `events` wants an event of `type`. */
function subscribes(events: readonly string[], type: string): boolean {
	return events.includes(ALL_EVENTS) || events.includes(type);
}

/**
 * Whether an endpoint is sent an event of `type` (SPEC §19): it subscribes to the type, and
 * its key's scopes, as they are now, can read it through the feed's one rule (`*` is "every
 * type that key can see"). `scopes` null: an endpoint without an owner key (made before
 * migration 0015, or added on Settings → Webhooks), which is sent what it subscribes to.
 */
export function deliverable(events: readonly string[], scopes: readonly Scope[] | null, type: string): boolean {
	if (!subscribes(events, type)) return false;
	return scopes === null || (typesVisibleTo(scopes) as readonly string[]).includes(type);
}
