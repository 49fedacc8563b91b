import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

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
			{
				displayName: 'Clear External ID',
				name: 'clearExternalId',
				type: 'boolean',
				default: false,
				description:
					"Whether to remove the person's external ID (e.g. once they have left the HR system or identity provider), so that another person can take it. Not together with External ID.",
			},
			{ displayName: 'Email', name: 'email', type: 'string', placeholder: 'name@example.com', default: '', description: 'The new email address, unique in the organization' },
			externalIdOption,
			{ displayName: 'Name', name: 'name', type: 'string', default: '', description: 'The new full name, as people see it in the LMS' },
			roleOption,
		],
	},
];

export const description = updateDisplayOptions({ show: { operation: ['update'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const body = personFields(fields);
	// An empty External ID is left out (an expression that finds no id changes nothing), so clearing
	// it is its own option: the API's `external_id: null`.
	if (fields.clearExternalId === true) {
		if (body.external_id !== undefined) {
			throw new NodeOperationError(this.getNode(), 'External ID and Clear External ID both set: keep one', {
				itemIndex,
				description: `External ID gives ${JSON.stringify(body.external_id)} while Clear External ID removes it. Turn Clear External ID off to set the ID, or leave External ID empty to clear it.`,
			});
		}
		body.external_id = null;
	}
	if (Object.keys(body).length === 0) throw nothingToChange.call(this, itemIndex);
	const userId = await requiredLocatorId.call(this, 'user', 'user', 'User', itemIndex);
	return await patchUser.call(this, userId, body, itemIndex);
}
