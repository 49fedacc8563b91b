import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { statusExecute, userToChange } from './people';

const properties: INodeProperties[] = [
	{
		...userToChange,
		description:
			'The user to reactivate: they can sign in again; enrollments withdrawn at deactivation stay withdrawn. Pick from the list, or give the ID (usr_…) or email.',
	},
];

export const description = updateDisplayOptions({ show: { operation: ['reactivate'] } }, properties);

export const execute = statusExecute('active');
