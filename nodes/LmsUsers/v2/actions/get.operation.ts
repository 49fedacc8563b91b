import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, updateDisplayOptions } from 'n8n-workflow';

import { getRecord } from '../../../shared/execute';
import { lmsLocator, NoUserWithEmailError, requiredLocatorId } from '../../../shared/locators';

const properties: INodeProperties[] = [
	lmsLocator('user', {
		displayName: 'User',
		name: 'user',
		required: true,
		description:
			'The user to get: pick one from the list (type part of a name or email to search), give the LMS user ID (usr_…), or give the email address',
	}),
	{
		displayName: 'If No User Matches',
		name: 'onNoMatch',
		type: 'options',
		noDataExpression: true,
		// Version 2.1 on: workflows saved with version 2 keep failing the item, as they did.
		displayOptions: { show: { '@version': [{ _cnd: { gte: 2.1 } }] } },
		options: [
			{ name: 'Fail the Item', value: 'fail', description: 'The item fails with "No LMS user has the email address …" (or On Error decides)' },
			{ name: 'Continue With No Item', value: 'continue', description: 'The node outputs nothing for this item and the workflow goes on' },
		],
		default: 'fail',
		description: 'What happens when no user has the email address (By Email) or the ID (By ID, From List)',
		hint: 'Continue With No Item outputs nothing for that input item: a following IF or Merge sees fewer items',
	},
];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

/** Nobody with that email, or no user with that id (404). */
function isNoMatch(error: unknown): boolean {
	return error instanceof NoUserWithEmailError || (error instanceof NodeApiError && error.httpCode === '404');
}

/** For `.catch()`: with Continue With No Item, no match becomes no item; anything else still fails. */
function noItemOnNoMatch(continueWithNoItem: boolean): (error: unknown) => IDataObject[] {
	return (error) => {
		if (continueWithNoItem && isNoMatch(error)) return [];
		throw error;
	};
}

async function getUser(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = await requiredLocatorId.call(this, 'user', 'user', 'User', itemIndex);
	return await getRecord.call(this, '/users', id, itemIndex);
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]> {
	// Version 2 has no such parameter: it fails the item, as it always did.
	const onNoMatch = this.getNode().typeVersion >= 2.1 ? (this.getNodeParameter('onNoMatch', itemIndex, 'fail') as string) : 'fail';
	return await getUser.call(this, itemIndex).catch(noItemOnNoMatch(onNoMatch === 'continue'));
}
