import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requiredLocatorId } from '../../../shared/locators';
import { externalIdOption, nothingToChange, patchUser, personFields, roleOption, userToChange } from './people';

const properties: INodeProperties[] = [
	userToChange,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'The fields to change; the others stay as they are. A change to what is already there changes nothing.',
		options: [
			{ displayName: 'Email', name: 'email', type: 'string', placeholder: 'name@example.com', default: '', description: 'The new email address, unique in the organization' },
			externalIdOption,
			{ displayName: 'Name', name: 'name', type: 'string', default: '', description: 'The new full name, as people see it in the LMS' },
			roleOption,
		],
	},
];

export const description = updateDisplayOptions({ show: { operation: ['update'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const body = personFields(this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject);
	if (Object.keys(body).length === 0) throw nothingToChange.call(this, itemIndex);
	const userId = await requiredLocatorId.call(this, 'user', 'user', 'User', itemIndex);
	return await patchUser.call(this, userId, body, itemIndex);
}
