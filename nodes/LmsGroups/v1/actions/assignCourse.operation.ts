import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { lmsLocator, requiredLocatorId } from '../../../shared/locators';
import { asNodeError, lmsApiRequest, lmsProblemOf } from '../../../shared/transport';
import { dueInDaysOf, groupIdOf, groupLocator } from './shared';

const properties: INodeProperties[] = [
	groupLocator('The group whose members get the course: pick it from the list, or give its ID (grp_…), its exact name or its external ID'),
	lmsLocator('course', {
		displayName: 'Course',
		name: 'course',
		required: true,
		description: 'The published course to assign: pick it by title or give its ID (crs_…)',
	}),
	{
		displayName: 'On Removal',
		name: 'onRemoval',
		type: 'options',
		default: 'keep',
		options: [
			{ name: 'Keep', value: 'keep', description: 'A member who leaves the group keeps their enrollment' },
			{ name: 'Withdraw', value: 'withdraw', description: 'A member who leaves has the active enrollment this assignment made withdrawn (completed ones never change)' },
		],
		description: 'What happens to the enrollment of a member who leaves the group',
	},
	{
		displayName: 'If Already Assigned',
		name: 'ifAssigned',
		type: 'options',
		default: 'fail',
		options: [
			{ name: 'Fail the Item', value: 'fail', description: 'The item fails with "The course … is already assigned to group …" (or On Error decides)' },
			{ name: 'Return Existing Assignment', value: 'returnExisting', description: 'The existing assignment is output as it is, unchanged: safe to run again' },
		],
		description: 'What happens when the course is already assigned to the group',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Optional fields of the assignment',
		options: [
			{
				displayName: 'Due In (Days)',
				name: 'dueInDays',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 3650, numberPrecision: 0 },
				default: 30,
				description:
					'Each enrollment the assignment makes is due this many days after the assignment is created (a member joining later: after the assignment too). Left out, the enrollments have no due date.',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { operation: ['assignCourse'] } }, properties);

/**
 * POST /assignments (SPEC §20): 201 with `applied_at` null; the LMS then enrolls every active
 * student member without an enrollment in the course, in the background.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const groupId = await groupIdOf.call(this, itemIndex);
	const courseId = await requiredLocatorId.call(this, 'course', 'course', 'Course', itemIndex);
	const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const dueInDays = dueInDaysOf.call(this, fields.dueInDays, itemIndex);
	const body: IDataObject = {
		group_id: groupId,
		course_id: courseId,
		on_removal: this.getNodeParameter('onRemoval', itemIndex, 'keep'),
		...(dueInDays === undefined ? {} : { due_in_days: dueInDays }),
	};
	try {
		return await lmsApiRequest.call(this, { method: 'POST', endpoint: '/assignments', body, itemIndex });
	} catch (error) {
		const problem = lmsProblemOf(error);
		const returnExisting = this.getNodeParameter('ifAssigned', itemIndex, 'fail') === 'returnExisting';
		if (returnExisting && problem?.code === 'assignment_exists' && typeof problem.assignment_id === 'string') {
			return await lmsApiRequest.call(this, { method: 'GET', endpoint: `/assignments/${encodeURIComponent(problem.assignment_id)}`, itemIndex });
		}
		throw asNodeError(this.getNode(), error, itemIndex);
	}
}
