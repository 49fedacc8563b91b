import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { createInBatch } from '../../../shared/batch';
import type { LmsItemOutcome } from '../../../shared/execute';
import { lmsApiRequest } from '../../../shared/transport';
import { emailField, externalIdOption, nameField, personFields, roleOption } from './people';

const properties: INodeProperties[] = [
	nameField("The new user's full name"),
	emailField("The new user's email address, unique in the organization"),
	roleOption,
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Optional fields of the new user',
		options: [externalIdOption],
	},
];

export const description = updateDisplayOptions({ show: { operation: ['create'] } }, properties);

export function bodyOf(this: IExecuteFunctions, itemIndex: number): IDataObject {
	return personFields({
		name: this.getNodeParameter('name', itemIndex),
		email: this.getNodeParameter('email', itemIndex),
		role: this.getNodeParameter('role', itemIndex, 'student'),
		...(this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject),
	});
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return await lmsApiRequest.call(this, { method: 'POST', endpoint: '/users', body: bodyOf.call(this, itemIndex), itemIndex });
}

/** What a stopped batch's error advises: a re-run that repeats nothing. */
export const rerunHint = 'To finish, fix that item and run the workflow again with Create or Update (Match By: Email): the people already created are matched, not created twice.';

/** Up to 100 input items in one request (SPEC §18); the output is the same as one per item. */
export async function executeMany(this: IExecuteFunctions, itemIndexes: number[]): Promise<LmsItemOutcome[]> {
	return await createInBatch.call(this, {
		endpoint: '/users',
		label: 'a user',
		itemIndexes,
		read: bodyOf,
		one: async ({ body, itemIndex }) => await lmsApiRequest.call(this, { method: 'POST', endpoint: '/users', body, itemIndex }),
		refused: (error) => Promise.reject(error),
	});
}
