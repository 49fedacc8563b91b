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

/**
 * What each type means, in a reader's terms: the one wording the event picker on Settings →
 * Webhooks shows (the n8n triggers word the same types in nodes/shared/events.ts, which the
 * package cannot import from the server). A Record, so a new type without a sentence fails to build.
 */
export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
	'user.created': 'A user was added to the organization.',
	'user.updated': "A user's name, e-mail, role or external ID changed.",
	'user.deactivated': 'A user was deactivated: no sign-in, active enrollments withdrawn.',
	'user.reactivated': 'A deactivated user was reactivated.',
	'enrollment.created': 'A student was enrolled in a course.',
	'enrollment.progressed': "A student's progress in a course changed.",
	'enrollment.completed': 'A student completed a course.',
	'enrollment.withdrawn': 'A student withdrew from a course.',
	'enrollment.reactivated': 'A withdrawn or expired enrollment became active again.',
	'enrollment.expired': 'The LMS expired an enrollment.',
	'enrollment.overdue': 'An active enrollment passed its due date (once per deadline).',
	'certificate.issued': 'A student earned a certificate by completing a course.',
	'group.created': 'A group was created.',
	'group.updated': "A group's name, description or external ID changed.",
	'group.deleted': 'A group was deleted; its assignments ended.',
	'group.member_added': 'A user joined a group (one event per user).',
	'group.member_removed': 'A user left a group (one event per user).',
};

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
