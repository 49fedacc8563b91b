import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

import {
	courseIdFilter,
	filterQuery,
	filtersCollection,
	roleFilter,
	type FilterMap,
} from '../../shared/descriptions';

export type LmsTriggerEvent = 'newCertificate' | 'newEnrollment' | 'newUser';

export interface EventDefinition {
	/** List endpoint under /api/v1. */
	endpoint: string;
	/** Plural noun for messages. */
	records: string;
	/** The list filters this event sends, from the node parameters. */
	query(this: IPollFunctions): Record<string, string>;
}

/** The event's Filters collection as list query parameters. */
function queryOf(map: FilterMap): EventDefinition['query'] {
	return function (this: IPollFunctions) {
		return filterQuery(this.getNodeParameter('filters', {}) as IDataObject, map);
	};
}

const byCourse = queryOf({ course_id: 'courseId' });

export const EVENTS: Record<LmsTriggerEvent, EventDefinition> = {
	newCertificate: { endpoint: '/certificates', records: 'certificates', query: byCourse },
	newEnrollment: { endpoint: '/enrollments', records: 'enrollments', query: byCourse },
	newUser: { endpoint: '/users', records: 'users', query: queryOf({ role: 'role' }) },
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
		...filtersCollection([
			courseIdFilter('Only trigger for this course (its ID, as the LMS Courses node returns it)'),
		]),
		displayOptions: { show: { event: ['newCertificate', 'newEnrollment'] } },
	},
	{
		...filtersCollection([roleFilter('Only trigger for users with this role')]),
		displayOptions: { show: { event: ['newUser'] } },
	},
	{
		displayName:
			'Each poll outputs one item per record created since the previous poll, oldest first. When the workflow is activated, existing records are skipped; "Fetch Test Event" shows the most recent record.',
		name: 'notice',
		type: 'notice',
		default: '',
	},
];
