import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { returnAllAndLimit } from '../../shared/descriptions';
import { lmsApiList } from '../../shared/transport';

const properties: INodeProperties[] = [...returnAllAndLimit('courses')];

export const description = updateDisplayOptions({ show: { operation: ['getAll'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex) as number);
	return await lmsApiList.call(this, '/courses', { returnAll, limit, itemIndex });
}
