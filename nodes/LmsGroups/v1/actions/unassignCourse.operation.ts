import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { lmsLocator, requiredLocatorId } from '../../../shared/locators';
import { lmsApiList, lmsApiRequest } from '../../../shared/transport';
import { groupIdOf, groupLocator } from './shared';

const ASSIGNMENT_ID = /^asg_[A-Za-z0-9]{1,36}$/;

const properties: INodeProperties[] = [
	{
		displayName: 'Find Assignment By',
		name: 'findBy',
		type: 'options',
		default: 'groupAndCourse',
		options: [
			{ name: 'Group and Course', value: 'groupAndCourse', description: 'The assignment of this course to this group' },
			{ name: 'Assignment ID', value: 'id', description: 'The assignment with this ID (asg_…), e.g. from Assign Course' },
		],
		description: 'How the assignment to end is found',
	},
	{
		...groupLocator('The group the course is assigned to: pick it from the list, or give its ID (grp_…), exact name or external ID'),
		displayOptions: { show: { findBy: ['groupAndCourse'] } },
	},
	{
		...lmsLocator('course', {
			displayName: 'Course',
			name: 'course',
			required: true,
			description: 'The course assigned to the group: pick it by title or give its ID (crs_…)',
		}),
		displayOptions: { show: { findBy: ['groupAndCourse'] } },
	},
	{
		displayName: 'Assignment ID',
		name: 'assignmentId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'asg_…',
		description: 'The ID of the assignment to end (asg_…), as Assign Course outputs it',
		displayOptions: { show: { findBy: ['id'] } },
	},
];

export const description = updateDisplayOptions({ show: { operation: ['unassignCourse'] } }, properties);

async function assignmentOf(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	if (this.getNodeParameter('findBy', itemIndex, 'groupAndCourse') === 'id') {
		const id = String(this.getNodeParameter('assignmentId', itemIndex, '') ?? '').trim();
		if (!ASSIGNMENT_ID.test(id)) {
			throw new NodeOperationError(this.getNode(), id ? `Assignment ID "${id}" is not an LMS assignment ID` : 'Assignment ID is empty', {
				itemIndex,
				description: 'An LMS assignment ID starts with asg_ followed by letters and digits: map the "id" of an Assign Course output, or find it By Group and Course',
			});
		}
		return await lmsApiRequest.call(this, { method: 'GET', endpoint: `/assignments/${encodeURIComponent(id)}`, itemIndex });
	}
	const groupId = await groupIdOf.call(this, itemIndex);
	const courseId = await requiredLocatorId.call(this, 'course', 'course', 'Course', itemIndex);
	const [assignment] = await lmsApiList.call(this, '/assignments', { returnAll: false, limit: 1, qs: { group_id: groupId, course_id: courseId }, itemIndex });
	if (!assignment) {
		throw new NodeOperationError(this.getNode(), `Course ${courseId} is not assigned to group ${groupId}`, {
			itemIndex,
			description: 'Nothing to unassign: check the Group and the Course (LMS Groups → Assign Course makes an assignment)',
		});
	}
	return assignment;
}

/**
 * DELETE /assignments/{id} (SPEC §20): nothing more is enrolled; the enrollments it made stay.
 * The item is the assignment that ended, with `deleted: true`.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const assignment = await assignmentOf.call(this, itemIndex);
	await lmsApiRequest.call(this, { method: 'DELETE', endpoint: `/assignments/${encodeURIComponent(String(assignment.id))}`, itemIndex });
	return { ...assignment, deleted: true };
}
