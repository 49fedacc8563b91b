import type { INodePropertyOptions } from 'n8n-workflow';

/**
 * Every event type of the LMS (SPEC §11, server/src/events/types.ts), named once for both
 * triggers: LMS Trigger version 2 (the feed) and LMS Instant Trigger (webhooks) offer the same
 * options with the same names, values and descriptions, so switching triggers needs no remapping.
 * The values are the feed's type names and are stored in saved workflows: never change one; a new
 * type is a new option. Sorted by name, as n8n's lint wants options.
 */
export const LMS_EVENT_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Certificate Issued', value: 'certificate.issued', description: 'A student earned a certificate by completing a course (needs read:enrollments)' },
	{ name: 'Enrollment Completed', value: 'enrollment.completed', description: 'A student completed a course (needs read:enrollments)' },
	{ name: 'Enrollment Created', value: 'enrollment.created', description: 'A student was enrolled in a course (needs read:enrollments)' },
	{ name: 'Enrollment Expired', value: 'enrollment.expired', description: 'The LMS expired an enrollment (needs read:enrollments)' },
	{ name: 'Enrollment Overdue', value: 'enrollment.overdue', description: 'An active enrollment passed its due date, once per enrollment (needs read:enrollments)' },
	{ name: 'Enrollment Progressed', value: 'enrollment.progressed', description: 'A student’s progress in a course changed (needs read:enrollments)' },
	{ name: 'Enrollment Reactivated', value: 'enrollment.reactivated', description: 'A withdrawn or expired enrollment became active again (needs read:enrollments)' },
	{ name: 'Enrollment Withdrawn', value: 'enrollment.withdrawn', description: 'A student withdrew from a course (needs read:enrollments)' },
	{ name: 'Group Created', value: 'group.created', description: 'A group was created (needs read:users)' },
	{ name: 'Group Deleted', value: 'group.deleted', description: 'A group was deleted; its assignments ended (needs read:users)' },
	{ name: 'Group Member Added', value: 'group.member_added', description: 'A user joined a group, one event per user, from the API, SCIM or the CLI (needs read:users)' },
	{ name: 'Group Member Removed', value: 'group.member_removed', description: 'A user left a group, one event per user (needs read:users)' },
	{ name: 'Group Updated', value: 'group.updated', description: 'A group’s name, description or external ID changed (needs read:users)' },
	{ name: 'User Created', value: 'user.created', description: 'A user was added to the organization (needs read:users)' },
	{ name: 'User Deactivated', value: 'user.deactivated', description: 'A user was deactivated: no sign-in, active enrollments withdrawn (needs read:users)' },
	{ name: 'User Reactivated', value: 'user.reactivated', description: 'A deactivated user was reactivated (needs read:users)' },
	{ name: 'User Updated', value: 'user.updated', description: 'A user’s name, email, role or external ID changed (needs read:users)' },
];

/** The values of LMS_EVENT_OPTIONS: every type the LMS has. */
export const LMS_EVENT_TYPES = LMS_EVENT_OPTIONS.map((option) => String(option.value));
