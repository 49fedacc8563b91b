import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { asNodeError, lmsApiRequest, lmsProblemOf } from '../../../shared/transport';
import { descriptionOption, externalIdOption, getGroup, groupFields } from './shared';

const properties: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Sales',
		description: "The new group's name (1–200 characters, unique in the organization in any case), for example a department",
	},
	{
		displayName: 'If Name Exists',
		name: 'ifExists',
		type: 'options',
		default: 'fail',
		options: [
			{ name: 'Fail the Item', value: 'fail', description: 'The item fails with "A group named … already exists" (or On Error decides)' },
			{ name: 'Return Existing Group', value: 'returnExisting', description: 'The group that has the name is output as it is: safe to run again' },
		],
		description: 'What happens when the organization already has a group of that name (in any case)',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Optional fields of the new group',
		options: [descriptionOption, externalIdOption],
	},
];

export const description = updateDisplayOptions({ show: { operation: ['create'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const body = groupFields({
		name: this.getNodeParameter('name', itemIndex),
		...(this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject),
	});
	try {
		return await lmsApiRequest.call(this, { method: 'POST', endpoint: '/groups', body, itemIndex });
	} catch (error) {
		const problem = lmsProblemOf(error);
		const returnExisting = this.getNodeParameter('ifExists', itemIndex, 'fail') === 'returnExisting';
		if (returnExisting && problem?.code === 'group_name_taken' && typeof problem.group_id === 'string') {
			return await getGroup.call(this, problem.group_id, itemIndex);
		}
		throw asNodeError(this.getNode(), error, itemIndex);
	}
}
