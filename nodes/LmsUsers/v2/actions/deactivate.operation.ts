import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { statusExecute, userToChange } from './people';

const properties: INodeProperties[] = [
	{
		...userToChange,
		description:
			'The user to deactivate: their active enrollments are withdrawn, they can no longer sign in, and their certificates stay valid. Pick from the list, or give the ID (usr_…) or email.',
	},
];

export const description = updateDisplayOptions({ show: { operation: ['deactivate'] } }, properties);

export const execute = statusExecute('deactivated');
