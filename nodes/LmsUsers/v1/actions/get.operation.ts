import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { idField, type IdFieldOptions } from '../../../shared/descriptions';
import { getExecute } from '../../../shared/execute';

const userId: IdFieldOptions = {
	displayName: 'User ID',
	name: 'userId',
	prefix: 'usr_',
	description: 'The LMS ID of the user, starting with usr_. To find it from an email address, use Get Many with the Email filter.',
};

const properties: INodeProperties[] = [idField(userId)];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

export const execute = getExecute('/users', userId);
