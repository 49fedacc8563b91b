import type { IDataObject, IDisplayOptions, IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { requiredLocatorId } from '../../../shared/locators';
import { lmsApiRequest } from '../../../shared/transport';
import { lmsDateTime } from '../../../shared/dates';
import { dateAloneOf, dueDateProperty, enrollmentLocator, FROM_2_2 } from './shared';

/** Version 2's changes, as they shipped. */
const CHANGES: INodePropertyOptions[] = [
	{
		name: 'Complete',
		value: 'complete',
		description: 'Mark an active enrollment completed (progress 100%): the LMS issues its certificate',
	},
	{
		name: 'Reactivate',
		value: 'reactivate',
		description: 'Make a withdrawn or expired enrollment active again, keeping its progress',
	},
	{
		name: 'Set Progress',
		value: 'progress',
		description: 'Set the progress of an active enrollment; 100 completes it',
	},
	{
		name: 'Withdraw',
		value: 'withdraw',
		description: 'Withdraw the student from the course (an active enrollment only)',
	},
];

/** Version 2.1 adds the deadline (SPEC §17). Sorted by name, as n8n's lint wants options. */
const CHANGES_2_1: INodePropertyOptions[] = [
	{
		name: 'Clear Due Date',
		value: 'clearDueDate',
		description: 'Remove the deadline: the enrollment is no longer overdue (not for a completed enrollment)',
	},
	CHANGES[0],
	CHANGES[1],
	{
		name: 'Set Due Date',
		value: 'dueDate',
		description:
			'Set or move the deadline (not for a completed enrollment). Moving it to the future arms Enrollment Overdue again.',
	},
	CHANGES[2],
	CHANGES[3],
];

function changeProperty(options: INodePropertyOptions[], version: IDisplayOptions['show']): INodeProperties {
	return {
		displayName: 'Change',
		name: 'change',
		type: 'options',
		default: 'progress',
		description: 'What happens to the enrollment. Repeating a change that is already done changes nothing, so it is safe to retry.',
		options,
		displayOptions: { show: version },
	};
}

const NEW_DEADLINE = 'The new deadline: when the student must have completed the course. A date already past makes an active enrollment overdue at once.';

const properties: INodeProperties[] = [
	enrollmentLocator,
	// Two parameters of one name, one per version (n8n shows the one whose version matches): a
	// version-2 node keeps exactly the choices it was saved with.
	changeProperty(CHANGES, { '@version': [2] }),
	changeProperty(CHANGES_2_1, { '@version': [{ _cnd: { gte: 2.1 } }] }),
	// Set Due Date's field as 2.1 shipped it, and from 2.2 on (a date alone: the end of that day).
	{ ...dueDateProperty(NEW_DEADLINE, 2.1, true), displayOptions: { show: { '@version': [2.1], change: ['dueDate'] } } },
	{ ...dueDateProperty(NEW_DEADLINE, 2.2, true), displayOptions: { show: { ...FROM_2_2, change: ['dueDate'] } } },
	{
		displayName: 'Progress (%)',
		name: 'progressPercent',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 100, numberPrecision: 0 },
		default: 0,
		required: true,
		description: 'The new progress, a whole number from 0 to 100. 100 completes the enrollment.',
		displayOptions: { show: { change: ['progress'] } },
	},
];

export const description = updateDisplayOptions({ show: { operation: ['update'] } }, properties);

const STATUS_OF: Record<string, string> = { complete: 'completed', reactivate: 'active', withdraw: 'withdrawn' };

/** PATCH /enrollments/{id} (SPEC §10, §17's due_at); a 409 invalid_transition is explained by the transport's error mapping. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = await requiredLocatorId.call(this, 'enrollment', 'enrollment', 'Enrollment', itemIndex);
	const change = this.getNodeParameter('change', itemIndex) as string;
	let body: IDataObject;
	if (change === 'progress') {
		const progress = Number(this.getNodeParameter('progressPercent', itemIndex));
		if (!Number.isInteger(progress) || progress < 0 || progress > 100) {
			throw new NodeOperationError(this.getNode(), `Progress must be a whole number from 0 to 100, not ${String(progress)}`, {
				itemIndex,
			});
		}
		body = { progress_percent: progress };
	} else if (change === 'dueDate' || change === 'clearDueDate') {
		const dueAt = change === 'dueDate' ? this.getNodeParameter('dueDate', itemIndex, '') : undefined;
		const due = lmsDateTime(this.getNode(), dueAt, 'Due Date', this.getTimezone(), itemIndex, dateAloneOf.call(this));
		if (change === 'dueDate' && due === undefined) {
			throw new NodeOperationError(this.getNode(), 'Due Date is empty', {
				itemIndex,
				description: 'Pick the new deadline, or choose Clear Due Date to remove it',
			});
		}
		body = { due_at: due ?? null };
	} else if (STATUS_OF[change]) {
		body = { status: STATUS_OF[change] };
	} else {
		throw new NodeOperationError(this.getNode(), `The change "${change}" is not supported`, { itemIndex });
	}
	return await lmsApiRequest.call(this, {
		method: 'PATCH',
		endpoint: `/enrollments/${encodeURIComponent(id)}`,
		body,
		itemIndex,
	});
}
