import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { lmsLocator, requiredLocatorId } from '../../../shared/locators';
import { lmsApiRequest } from '../../../shared/transport';

/** The Group picker every operation on one group starts with. */
export function groupLocator(description: string): INodeProperties {
	return lmsLocator('group', { displayName: 'Group', name: 'group', required: true, description });
}

/** The picked group's ID (By Name and By External ID looked up). */
export async function groupIdOf(this: IExecuteFunctions, itemIndex: number): Promise<string> {
	return await requiredLocatorId.call(this, 'group', 'group', 'Group', itemIndex);
}

export const groupPath = (groupId: string) => `/groups/${encodeURIComponent(groupId)}`;

export const descriptionOption: INodeProperties = {
	displayName: 'Description',
	name: 'description',
	type: 'string',
	typeOptions: { rows: 2 },
	default: '',
	description: 'What the group is, for the people who manage it (up to 1,000 characters)',
};

export const externalIdOption: INodeProperties = {
	displayName: 'External ID',
	name: 'externalId',
	type: 'string',
	default: '',
	description: "The group's ID in the HR system or identity provider (1–255 characters, unique in the organization)",
};

/** The API's names for a group's fields as the node gives them; empty ones are left out. */
export function groupFields(fields: IDataObject): IDataObject {
	const body: IDataObject = {};
	if (typeof fields.name === 'string' && fields.name.trim()) body.name = fields.name.trim();
	if (typeof fields.description === 'string' && fields.description.trim()) body.description = fields.description.trim();
	if (typeof fields.externalId === 'string' && fields.externalId.trim()) body.external_id = fields.externalId.trim();
	return body;
}

/**
 * Update: a Description or External ID added to Update Fields but left empty clears it (the API
 * takes null for both, SPEC §20); groupFields leaves empty ones out, which could never clear them.
 */
export function clearedFields(fields: IDataObject): IDataObject {
	const body: IDataObject = {};
	if (typeof fields.description === 'string' && !fields.description.trim()) body.description = null;
	if (typeof fields.externalId === 'string' && !fields.externalId.trim()) body.external_id = null;
	return body;
}

export async function getGroup(this: IExecuteFunctions, groupId: string, itemIndex: number): Promise<IDataObject> {
	return await lmsApiRequest.call(this, { method: 'GET', endpoint: groupPath(groupId), itemIndex });
}

/** A number of days the API takes for `due_in_days` (1–3,650), or undefined for none. */
export function dueInDaysOf(this: IExecuteFunctions, value: unknown, itemIndex: number): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const days = Number(value);
	if (!Number.isInteger(days) || days < 1 || days > 3650) {
		throw new NodeOperationError(this.getNode(), `Due In (Days) must be a whole number from 1 to 3650, not "${String(value)}"`, {
			itemIndex,
			description: 'Leave Due In (Days) out for an assignment without a deadline',
		});
	}
	return days;
}
