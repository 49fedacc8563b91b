import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { idField } from '../../shared/descriptions';
import { requiredId } from '../../shared/execute';
import { lmsApiRequest } from '../../shared/transport';

const properties: INodeProperties[] = [
	idField({
		displayName: 'Enrollment ID',
		name: 'enrollmentId',
		prefix: 'enr_',
		description: 'The LMS ID of the enrollment, starting with enr_',
	}),
];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const enrollmentId = requiredId.call(this, 'enrollmentId', 'Enrollment ID', itemIndex);
	return await lmsApiRequest.call(this, {
		method: 'GET',
		endpoint: `/enrollments/${encodeURIComponent(enrollmentId)}`,
		itemIndex,
	});
}
