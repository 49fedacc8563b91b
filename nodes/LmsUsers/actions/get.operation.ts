import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { idField } from '../../shared/descriptions';
import { requiredId } from '../../shared/execute';
import { lmsApiRequest } from '../../shared/transport';

const properties: INodeProperties[] = [
	idField({
		displayName: 'User ID',
		name: 'userId',
		prefix: 'usr_',
		description: 'The LMS ID of the user, starting with usr_. To find it from an email address, use Get Many with the Email filter.',
	}),
];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const userId = requiredId.call(this, 'userId', 'User ID', itemIndex);
	return await lmsApiRequest.call(this, {
		method: 'GET',
		endpoint: `/users/${encodeURIComponent(userId)}`,
		itemIndex,
	});
}
