import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { filtersCollection, returnAllAndLimit, FILTERS_DESCRIPTION } from '../../../shared/descriptions';
import { listExecute } from '../../../shared/execute';
import { lmsLocator } from '../../../shared/locators';

const properties: INodeProperties[] = [
	...returnAllAndLimit('enrollments'),
	filtersCollection([
		lmsLocator('course', {
			displayName: 'Course',
			name: 'course',
			description: 'Only enrollments in this course: pick it by title or give its ID (crs_…)',
		}),
		{
			displayName: 'Due Within (Days)',
			name: 'dueWithin',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 7,
			description:
				'Only active enrollments whose due date is within this many days from now and not yet passed (for example 7 for a reminder a week before the deadline). Enrollments without a due date are left out.',
		},
		lmsLocator('group', {
			displayName: 'Group',
			name: 'group',
			description: "Only the enrollments of the group's members (with Overdue: who in the group is late): pick it from the list, or give its ID (grp_…), exact name or external ID",
		}),
		{
			displayName: 'Overdue',
			name: 'overdue',
			type: 'options',
			default: 'true',
			description:
				'Only enrollments that are overdue (active and past their due date), only those that are not, or any',
			options: [
				{ name: 'Any', value: 'any', description: 'Overdue or not' },
				{ name: 'Not Overdue', value: 'false', description: 'Completed, withdrawn, expired, without a due date, or due later' },
				{ name: 'Overdue', value: 'true', description: 'Active and past the due date' },
			],
		},
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			default: 'active',
			description:
				'Only enrollments in this state: active (in progress), completed, withdrawn or expired',
			options: [
				{ name: 'Active', value: 'active', description: 'Enrolled and not yet finished' },
				{ name: 'Completed', value: 'completed', description: 'Finished the course' },
				{ name: 'Expired', value: 'expired', description: 'Access ran out before completion' },
				{ name: 'Withdrawn', value: 'withdrawn', description: 'Left the course' },
			],
		},
		lmsLocator('student', {
			displayName: 'Student',
			name: 'student',
			description: 'Only enrollments of this student: pick by name, give the ID (usr_…), or the email address',
		}),
	], FILTERS_DESCRIPTION),
];

export const description = updateDisplayOptions({ show: { operation: ['getAll'] } }, properties);

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Overdue → `overdue` (Any: not sent); Due Within N → `due_after` now, `due_before` now + N days
 * and `status` active: the enrollments a reminder is for (SPEC §17).
 */
function deadlineQuery(this: IExecuteFunctions, filters: IDataObject, itemIndex: number): IDataObject {
	const qs: IDataObject = {};
	if (filters.overdue === 'true' || filters.overdue === 'false') qs.overdue = filters.overdue;
	const within = filters.dueWithin;
	if (within === undefined || within === null || within === '') return qs;
	const days = Number(within);
	if (!Number.isFinite(days) || days <= 0) {
		throw new NodeOperationError(this.getNode(), `Due Within must be a number of days above 0, not "${String(within)}"`, { itemIndex });
	}
	if (filters.status !== undefined && filters.status !== 'active') {
		throw new NodeOperationError(this.getNode(), 'Due Within lists active enrollments only, and Status asks for another state', {
			itemIndex,
			description: 'Remove the Status filter, or set it to Active',
		});
	}
	const now = Date.now();
	return { ...qs, status: 'active', due_after: new Date(now).toISOString(), due_before: new Date(now + days * DAY_MS).toISOString() };
}

export const execute = listExecute('/enrollments', {
	filters: { status: 'status' },
	locators: { student_id: ['student', 'student'], course_id: ['course', 'course'], group_id: ['group', 'group'] },
	extraQuery: deadlineQuery,
});
