import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getGroup, groupIdOf, groupLocator } from './shared';

const properties: INodeProperties[] = [
	groupLocator('The group to get: pick it from the list (type part of its name), or give its ID (grp_…), its exact name or its external ID'),
];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return await getGroup.call(this, await groupIdOf.call(this, itemIndex), itemIndex);
}
