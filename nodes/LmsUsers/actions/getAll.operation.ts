import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { filterQuery, returnAllAndLimit } from '../../shared/descriptions';
import { lmsApiList } from '../../shared/transport';

const properties: INodeProperties[] = [
	...returnAllAndLimit('users'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Email',
				name: 'email',
				type: 'string',
				placeholder: 'name@email.com',
				default: '',
				description:
					'Only the user with this email address (exact match, not case-sensitive). Use it to look up the LMS user ID of a person known by email.',
			},
			{
				displayName: 'Role',
				name: 'role',
				type: 'options',
				default: 'student',
				description: 'Only users with this role',
				options: [
					{ name: 'Admin', value: 'admin' },
					{ name: 'Instructor', value: 'instructor' },
					{ name: 'Student', value: 'student' },
					{ name: 'Super Admin', value: 'super_admin' },
				],
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { operation: ['getAll'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex) as number);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	return await lmsApiList.call(this, '/users', {
		returnAll,
		limit,
		qs: filterQuery({ email: filters.email, role: filters.role }),
		itemIndex,
	});
}
