/** The event types of the feed (SPEC §11) that an endpoint may subscribe to, or `*` for all. */
export const WEBHOOK_EVENT_TYPES = [
	'user.created',
	'enrollment.created',
	'enrollment.progressed',
	'enrollment.completed',
	'enrollment.withdrawn',
	'enrollment.reactivated',
	'enrollment.expired',
	'certificate.issued',
] as const;

export const ALL_EVENTS = '*';

/** True when an endpoint subscribed to `events` wants an event of `type`. */
export function subscribes(events: readonly string[], type: string): boolean {
	return events.includes(ALL_EVENTS) || events.includes(type);
}
