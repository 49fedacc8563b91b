import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getByLocatorExecute } from '../../../shared/execute';
import { lmsLocator } from '../../../shared/locators';

const properties: INodeProperties[] = [
	lmsLocator('user', {
		displayName: 'User',
		name: 'user',
		required: true,
		description:
			'The user to get: pick one from the list (type part of a name or email to search), give the LMS user ID (usr_…), or give the email address',
	}),
];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

export const execute = getByLocatorExecute('/users', 'user', 'user', 'User');
