import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { filtersCollection, returnAllAndLimit, searchFilter, FILTERS_DESCRIPTION } from '../../../shared/descriptions';
import { listExecute } from '../../../shared/execute';
import { lmsLocator } from '../../../shared/locators';

const properties: INodeProperties[] = [
	...returnAllAndLimit('groups'),
	filtersCollection([
		{
			displayName: 'External ID',
			name: 'externalId',
			type: 'string',
			default: '',
			description: 'Only the group with this external ID (exact match): the ID the HR system or identity provider gives it',
		},
		lmsLocator('user', {
			displayName: 'Member',
			name: 'member',
			description: 'Only the groups this user is a member of: pick by name, give the ID (usr_…), or the email address',
		}),
		{
			displayName: 'Name',
			name: 'name',
			type: 'string',
			default: '',
			placeholder: 'e.g. Sales',
			description: 'Only the group with exactly this name (not case-sensitive)',
		},
		searchFilter('Only groups whose name contains this text (not case-sensitive): "sal" finds Sales and Wholesale'),
	], FILTERS_DESCRIPTION),
];

export const description = updateDisplayOptions({ show: { operation: ['getAll'] } }, properties);

export const execute = listExecute('/groups', {
	filters: { name: 'name', external_id: 'externalId', search: 'search' },
	locators: { member: ['member', 'user'] },
});
