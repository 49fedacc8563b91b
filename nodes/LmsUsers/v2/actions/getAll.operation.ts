import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { emailFilter, filtersCollection, returnAllAndLimit, roleFilter, searchFilter, FILTERS_DESCRIPTION } from '../../../shared/descriptions';
import { listExecute } from '../../../shared/execute';
import { lmsLocator } from '../../../shared/locators';

const properties: INodeProperties[] = [
	...returnAllAndLimit('users'),
	filtersCollection([
		emailFilter(
			'Only the user with this email address (exact match, not case-sensitive), for example the address of a new hire',
		),
		lmsLocator('group', {
			displayName: 'Group',
			name: 'group',
			description: "Only the group's members: pick it from the list, or give its ID (grp_…), its exact name or its external ID",
		}),
		roleFilter('Only users with this role: student, instructor, admin or super_admin'),
		searchFilter(
			'Only users whose email, or any word of whose name, starts with this text (not case-sensitive): "ali" finds Alice Martin and ali@example.com',
		),
	], FILTERS_DESCRIPTION),
];

export const description = updateDisplayOptions({ show: { operation: ['getAll'] } }, properties);

export const execute = listExecute('/users', {
	filters: { email: 'email', role: 'role', search: 'search' },
	locators: { group_id: ['group', 'group'] },
});
