import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { idField, type IdFieldOptions } from '../../../shared/descriptions';
import { getExecute } from '../../../shared/execute';

const certificateId: IdFieldOptions = {
	displayName: 'Certificate ID',
	name: 'certificateId',
	prefix: 'cert_',
	description: 'The LMS ID of the certificate, starting with cert_',
};

const properties: INodeProperties[] = [idField(certificateId)];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

export const execute = getExecute('/certificates', certificateId);
