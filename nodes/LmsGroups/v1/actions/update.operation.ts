import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { lmsApiRequest } from '../../../shared/transport';
import { clearedFields, descriptionOption, externalIdOption, groupFields, groupIdOf, groupLocator, groupPath } from './shared';

const properties: INodeProperties[] = [
	groupLocator('The group to change: pick it from the list, or give its ID (grp_…), its exact name or its external ID'),
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'The fields to change; the others stay as they are',
		options: [
			{ ...descriptionOption, description: `${String(descriptionOption.description)}; left empty, clears it` },
			{ ...externalIdOption, description: `${String(externalIdOption.description)}; left empty, clears it` },
			{ displayName: 'Name', name: 'name', type: 'string', default: '', description: 'The new name, unique in the organization in any case' },
		],
	},
];

export const description = updateDisplayOptions({ show: { operation: ['update'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const body = { ...groupFields(fields), ...clearedFields(fields) };
	if (Object.keys(body).length === 0) {
		throw new NodeOperationError(this.getNode(), 'Nothing to update: add at least one field under Update Fields', { itemIndex });
	}
	const groupId = await groupIdOf.call(this, itemIndex);
	return await lmsApiRequest.call(this, { method: 'PATCH', endpoint: groupPath(groupId), body, itemIndex });
}
