import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { emailFilter, filtersCollection, returnAllAndLimit, roleFilter } from '../../../shared/descriptions';
import { getManyExecute } from '../../../shared/execute';

const properties: INodeProperties[] = [
	...returnAllAndLimit('users'),
	filtersCollection([
		emailFilter(
			'Only the user with this email address (exact match, not case-sensitive). Use it to look up the LMS user ID of a person known by email.',
		),
		roleFilter('Only users with this role'),
	]),
];

export const description = updateDisplayOptions({ show: { operation: ['getAll'] } }, properties);

export const execute = getManyExecute('/users', { email: 'email', role: 'role' });
