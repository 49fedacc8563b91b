import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { idField } from '../../shared/descriptions';
import { requiredId } from '../../shared/execute';
import { lmsApiRequest } from '../../shared/transport';

const properties: INodeProperties[] = [
	idField({
		displayName: 'Course ID',
		name: 'courseId',
		prefix: 'crs_',
		description: 'The LMS ID of a published course, starting with crs_. Draft courses are not visible through the API.',
	}),
];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const courseId = requiredId.call(this, 'courseId', 'Course ID', itemIndex);
	return await lmsApiRequest.call(this, {
		method: 'GET',
		endpoint: `/courses/${encodeURIComponent(courseId)}`,
		itemIndex,
	});
}
