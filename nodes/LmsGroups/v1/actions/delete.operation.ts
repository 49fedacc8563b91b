import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { lmsApiRequest } from '../../../shared/transport';
import { groupIdOf, groupLocator, groupPath } from './shared';

const properties: INodeProperties[] = [
	groupLocator(
		'The group to delete: its assignments end as if every member left (with On Removal: Withdraw, their active enrollments from it are withdrawn); the users stay. Pick it from the list, or give its ID (grp_…), exact name or external ID.',
	),
];

export const description = updateDisplayOptions({ show: { operation: ['delete'] } }, properties);

/** DELETE answers 204 without a body: the item says which group went. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const groupId = await groupIdOf.call(this, itemIndex);
	await lmsApiRequest.call(this, { method: 'DELETE', endpoint: groupPath(groupId), itemIndex });
	return { id: groupId, deleted: true };
}
