import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { returnAllAndLimit } from '../../../shared/descriptions';
import { lmsApiList } from '../../../shared/transport';
import { groupIdOf, groupLocator, groupPath } from './shared';

const properties: INodeProperties[] = [
	groupLocator('The group whose members to list: pick it from the list, or give its ID (grp_…), exact name or external ID'),
	...returnAllAndLimit('members'),
];

export const description = updateDisplayOptions({ show: { operation: ['getMembers'] } }, properties);

/** One item per member, each a user as the API shows users. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const groupId = await groupIdOf.call(this, itemIndex);
	const returnAll = this.getNodeParameter('returnAll', itemIndex) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex) as number);
	return await lmsApiList.call(this, `${groupPath(groupId)}/members`, { returnAll, limit, itemIndex });
}
