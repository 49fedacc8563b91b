import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { idField } from '../../shared/descriptions';
import { requiredId } from '../../shared/execute';
import { lmsApiRequest } from '../../shared/transport';

const properties: INodeProperties[] = [
	idField({
		displayName: 'Certificate ID',
		name: 'certificateId',
		prefix: 'cert_',
		description: 'The LMS ID of the certificate, starting with cert_',
	}),
];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const certificateId = requiredId.call(this, 'certificateId', 'Certificate ID', itemIndex);
	return await lmsApiRequest.call(this, {
		method: 'GET',
		endpoint: `/certificates/${encodeURIComponent(certificateId)}`,
		itemIndex,
	});
}
