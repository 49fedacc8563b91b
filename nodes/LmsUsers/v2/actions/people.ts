import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { lmsLocator, requiredLocatorId } from '../../../shared/locators';
import { lmsApiRequest } from '../../../shared/transport';

/**
 * The fields of a person the write operations share (SPEC §16): the API grants only the student
 * and instructor roles, and an external ID is the HR system's or identity provider's own id.
 */

export const userToChange = lmsLocator('user', {
	displayName: 'User',
	name: 'user',
	required: true,
	description: 'The user to change: pick one from the list, give the LMS user ID (usr_…), or give the email address',
});

export function nameField(description: string): INodeProperties {
	return { displayName: 'Name', name: 'name', type: 'string', default: '', required: true, placeholder: 'Ada Lovelace', description };
}

export function emailField(description: string): INodeProperties {
	return { displayName: 'Email', name: 'email', type: 'string', placeholder: 'name@example.com', default: '', required: true, description };
}

export const roleOption: INodeProperties = {
	displayName: 'Role',
	name: 'role',
	type: 'options',
	default: 'student',
	options: [
		{ name: 'Instructor', value: 'instructor' },
		{ name: 'Student', value: 'student' },
	],
	description: 'Student or instructor. Admins and super admins are never made or changed through the API.',
};

export const externalIdOption: INodeProperties = {
	displayName: 'External ID',
	name: 'externalId',
	type: 'string',
	default: '',
	description: "The person's ID in the HR system or identity provider (1–255 characters, unique in the organization)",
};

/** The API's names for what an item's optional fields give (an empty External ID is left out). */
export function personFields(fields: IDataObject): IDataObject {
	const body: IDataObject = {};
	if (typeof fields.name === 'string' && fields.name.trim()) body.name = fields.name.trim();
	if (typeof fields.email === 'string' && fields.email.trim()) body.email = fields.email.trim();
	if (typeof fields.role === 'string' && fields.role) body.role = fields.role;
	if (typeof fields.externalId === 'string' && fields.externalId.trim()) body.external_id = fields.externalId.trim();
	return body;
}

/** PATCH /users/{id}: the changed user, as the API answers it. */
export async function patchUser(this: IExecuteFunctions, userId: string, body: IDataObject, itemIndex: number): Promise<IDataObject> {
	return await lmsApiRequest.call(this, { method: 'PATCH', endpoint: `/users/${encodeURIComponent(userId)}`, body, itemIndex });
}

/** Deactivate and Reactivate: the picked user's status. */
export function statusExecute(status: 'active' | 'deactivated') {
	return async function (this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
		const userId = await requiredLocatorId.call(this, 'user', 'user', 'User', itemIndex);
		return await patchUser.call(this, userId, { status }, itemIndex);
	};
}

export function nothingToChange(this: IExecuteFunctions, itemIndex: number): NodeOperationError {
	return new NodeOperationError(this.getNode(), 'Nothing to update: add at least one field under Update Fields', { itemIndex });
}
