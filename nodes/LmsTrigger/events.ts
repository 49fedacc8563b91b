import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

import { filterQuery } from '../shared/descriptions';

export type LmsTriggerEvent = 'newCertificate' | 'newEnrollment' | 'newUser';

export interface EventDefinition {
	/** List endpoint under /api/v1. */
	endpoint: string;
	/** Plural noun for messages. */
	records: string;
	/** The list filters this event sends, from the node parameters. */
	query(this: IPollFunctions): Record<string, string>;
}

function courseFilter(this: IPollFunctions): Record<string, string> {
	const filters = this.getNodeParameter('filters', {}) as IDataObject;
	return filterQuery({ course_id: filters.courseId });
}

export const EVENTS: Record<LmsTriggerEvent, EventDefinition> = {
	newCertificate: { endpoint: '/certificates', records: 'certificates', query: courseFilter },
	newEnrollment: { endpoint: '/enrollments', records: 'enrollments', query: courseFilter },
	newUser: {
		endpoint: '/users',
		records: 'users',
		query(this: IPollFunctions) {
			const filters = this.getNodeParameter('filters', {}) as IDataObject;
			return filterQuery({ role: filters.role });
		},
	},
};

const courseIdFilter: INodeProperties = {
	displayName: 'Course ID',
	name: 'courseId',
	type: 'string',
	placeholder: 'crs_…',
	default: '',
	description: 'Only trigger for this course (its ID, as the LMS Courses node returns it)',
};

export const eventProperties: INodeProperties[] = [
	{
		displayName: 'Event',
		name: 'event',
		type: 'options',
		noDataExpression: true,
		default: 'newEnrollment',
		options: [
			{
				name: 'New Certificate',
				value: 'newCertificate',
				description: 'A student earned a certificate (needs a key with read:enrollments)',
			},
			{
				name: 'New Enrollment',
				value: 'newEnrollment',
				description: 'A student was enrolled in a course (needs a key with read:enrollments)',
			},
			{
				name: 'New User',
				value: 'newUser',
				description: 'A user was added to the organization (needs a key with read:users)',
			},
		],
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: { event: ['newCertificate', 'newEnrollment'] } },
		options: [courseIdFilter],
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		displayOptions: { show: { event: ['newUser'] } },
		options: [
			{
				displayName: 'Role',
				name: 'role',
				type: 'options',
				default: 'student',
				description: 'Only trigger for users with this role',
				options: [
					{ name: 'Admin', value: 'admin' },
					{ name: 'Instructor', value: 'instructor' },
					{ name: 'Student', value: 'student' },
					{ name: 'Super Admin', value: 'super_admin' },
				],
			},
		],
	},
	{
		displayName:
			'Each poll outputs one item per record created since the previous poll, oldest first. When the workflow is activated, existing records are skipped; "Fetch Test Event" shows the most recent record.',
		name: 'notice',
		type: 'notice',
		default: '',
	},
];
