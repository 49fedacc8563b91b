import type { Scope } from '../api-keys/model';

/** SPEC §11: every kind of event, and the scope a key needs to see it. */
export const EVENT_TYPES = [
	'user.created',
	'user.updated',
	'user.deactivated',
	'user.reactivated',
	'enrollment.created',
	'enrollment.progressed',
	'enrollment.completed',
	'enrollment.withdrawn',
	'enrollment.reactivated',
	'enrollment.expired',
	'enrollment.overdue',
	'certificate.issued',
	'group.created',
	'group.updated',
	'group.deleted',
	'group.member_added',
	'group.member_removed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const SCOPE_OF_RESOURCE: Record<string, Scope> = {
	user: 'read:users',
	enrollment: 'read:enrollments',
	certificate: 'read:enrollments',
	// Groups are roster data (SPEC §20), as users are.
	group: 'read:users',
};

export function scopeOf(type: EventType): Scope {
	return SCOPE_OF_RESOURCE[type.split('.')[0]];
}

/**
 * The one visibility rule (SPEC §11): the event types a key with these scopes may read. The
 * feed, its head and webhooks (what an endpoint may subscribe to and is sent) all ask this.
 */
export function typesVisibleTo(scopes: readonly Scope[]): EventType[] {
	return EVENT_TYPES.filter((t) => scopes.includes(scopeOf(t)));
}

/** The scopes that let a key read some part of the feed, the one covering most types first. */
export const EVENT_SCOPES: Scope[] = ['read:enrollments', 'read:users'];

/** `user.*`, `enrollment.*`, `certificate.*`: every type of one resource. */
export const TYPE_PREFIXES = Object.keys(SCOPE_OF_RESOURCE).map((resource) => `${resource}.*`);

export function isEventType(value: string): value is EventType {
	return (EVENT_TYPES as readonly string[]).includes(value);
}

/** The types one `type` filter item names: itself, or every type under a prefix; undefined if unknown. */
export function typesNamedBy(item: string): EventType[] | undefined {
	if (isEventType(item)) return [item];
	if (TYPE_PREFIXES.includes(item)) return EVENT_TYPES.filter((t) => t.startsWith(item.slice(0, -1)));
	return undefined;
}
