import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getByLocatorExecute } from '../../../shared/execute';
import { lmsLocator } from '../../../shared/locators';

const properties: INodeProperties[] = [
	lmsLocator('certificate', {
		displayName: 'Certificate',
		name: 'certificate',
		required: true,
		description: 'The certificate to get: its LMS ID (cert_…), or pick it from the list',
	}),
];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

export const execute = getByLocatorExecute('/certificates', 'certificate', 'certificate', 'Certificate');
