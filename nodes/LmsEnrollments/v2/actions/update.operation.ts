import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { requiredLocatorId } from '../../../shared/locators';
import { lmsApiRequest } from '../../../shared/transport';
import { enrollmentLocator } from './shared';

const properties: INodeProperties[] = [
	enrollmentLocator,
	{
		displayName: 'Change',
		name: 'change',
		type: 'options',
		default: 'progress',
		description: 'What happens to the enrollment. Repeating a change that is already done changes nothing, so it is safe to retry.',
		options: [
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
		],
	},
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

/** PATCH /enrollments/{id} (SPEC §10); a 409 invalid_transition is explained by the transport's error mapping. */
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
