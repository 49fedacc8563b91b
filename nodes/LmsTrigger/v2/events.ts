import type { INodeProperties } from 'n8n-workflow';

import { filtersCollection, roleFilter } from '../../shared/descriptions';
import { LMS_EVENT_OPTIONS, LMS_EVENT_TYPES } from '../../shared/events';
import { lmsLocator } from '../../shared/locators';

/** The feed's event types (SPEC §11): every one of them, as LMS Instant Trigger offers them. */
const FEED_EVENTS = LMS_EVENT_TYPES;

export type FeedEventType = string;

/** Not a feed event: the trigger makes it, N days before a certificate's `expires_at`. */
export const CERTIFICATE_EXPIRING = 'certificate.expiring';

/** Not a feed event either: the trigger makes it, N days before an enrollment's `due_at` (due-soon.ts). */
export const ENROLLMENT_DUE_SOON = 'enrollment.due_soon';

export const DEFAULT_DUE_DAYS_BEFORE = 7;

export function isFeedEvent(type: string): type is FeedEventType {
	return (FEED_EVENTS as readonly string[]).includes(type);
}

export const DEFAULT_DAYS_BEFORE = 30;

export const eventProperties: INodeProperties[] = [
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		noDataExpression: true,
		default: ['enrollment.completed'],
		description: 'Which events start the workflow (one item per event)',
		options: [
			{
				name: 'Certificate Expiring',
				value: CERTIFICATE_EXPIRING,
				description:
					'A certificate expires in the number of days set below; certificates issued with less time left trigger when they are issued (needs read:enrollments)',
			},
			{
				name: 'Enrollment Due Soon',
				value: ENROLLMENT_DUE_SOON,
				description:
					'An active enrollment is due in the number of days set below, once per enrollment and due date; one assigned or moved with less time left triggers at the next poll (needs read:enrollments; LMS Trigger only)',
			},
			...LMS_EVENT_OPTIONS,
		].sort((a, b) => a.name.localeCompare(b.name)),
	},
	{
		displayName: 'Days Before Expiry',
		name: 'daysBefore',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 3650, numberPrecision: 0 },
		default: DEFAULT_DAYS_BEFORE,
		description:
			'How many days before a certificate expires the workflow starts for it, once per certificate (0: when it expires)',
		displayOptions: { show: { events: [CERTIFICATE_EXPIRING] } },
	},
	{
		displayName: 'Days Before Due Date',
		name: 'dueDaysBefore',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 3650, numberPrecision: 0 },
		default: DEFAULT_DUE_DAYS_BEFORE,
		description:
			'How many days before an active enrollment’s due date the workflow starts for it (Enrollment Due Soon), once per enrollment and due date',
		displayOptions: { show: { events: [ENROLLMENT_DUE_SOON] } },
	},
	{
		...filtersCollection([
			lmsLocator('course', {
				displayName: 'Course',
				name: 'course',
				description:
					'Only enrollment and certificate events (Certificate Expiring and Enrollment Due Soon included) of this course: pick it by title or give its ID (crs_…); user events are not filtered',
			}),
			roleFilter('Only user events (User Created, Updated, Deactivated, Reactivated) for users with this role; other events are not filtered'),
		]),
	},
	{
		displayName:
			'Each poll outputs one item per event since the previous poll, oldest first: the record, plus event_id, event_type and event_created_at (the same fields as LMS Instant Trigger). Nothing that happened before the workflow was activated is sent; "Fetch Test Event" shows a sample.',
		name: 'notice',
		type: 'notice',
		default: '',
	},
];
