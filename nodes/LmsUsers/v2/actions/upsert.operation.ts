import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { createInBatch, type BatchEntry } from '../../../shared/batch';
import type { LmsItemOutcome } from '../../../shared/execute';
import { asNodeError, lmsApiList, lmsApiRequest, lmsProblemOf } from '../../../shared/transport';
import { emailField, externalIdOption, nameField, patchUser, personFields, roleOption } from './people';

/**
 * Create or Update, n8n's upsert: the person is created, or, when the organization already has
 * someone with the same email (or external ID), that user is updated. The create goes first — in
 * batches of 100 — and the LMS's 409 names who already holds the email or external ID, so a
 * roster of mostly new people costs one request per hundred, and a concurrent create of the same
 * person still ends in one user.
 */
const properties: INodeProperties[] = [
	{
		displayName: 'Match By',
		name: 'matchBy',
		type: 'options',
		default: 'email',
		options: [
			{ name: 'Email', value: 'email', description: 'The user with this email address (not case-sensitive) is updated' },
			{ name: 'External ID', value: 'externalId', description: 'The user with this external ID is updated, their email included' },
		],
		description: 'How an existing user is recognised. Needs write:users and read:users.',
	},
	{ ...externalIdOption, required: true, displayOptions: { show: { matchBy: ['externalId'] } } },
	emailField('The email address: created with it, or (matching by email) the user to update'),
	nameField('The full name: set on a new user, and changed on an existing one'),
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Set on a new user, and changed on an existing one; left out, an existing user keeps theirs',
		options: [{ ...externalIdOption, displayOptions: { show: { '/matchBy': ['email'] } } }, { ...roleOption, description: 'Student (a new user without a role is one) or instructor' }],
	},
];

export const description = updateDisplayOptions({ show: { operation: ['upsert'] } }, properties);

function bodyOf(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const matchBy = this.getNodeParameter('matchBy', itemIndex, 'email') as string;
	return personFields({
		name: this.getNodeParameter('name', itemIndex),
		email: this.getNodeParameter('email', itemIndex),
		...(this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject),
		...(matchBy === 'externalId' ? { externalId: this.getNodeParameter('externalId', itemIndex) } : {}),
	});
}

/** Who the 409 says already exists, when that is the user this item matches; else undefined. */
async function matchedUserId(this: IExecuteFunctions, error: unknown, { body, itemIndex }: BatchEntry): Promise<string | undefined> {
	const problem = lmsProblemOf(error);
	const holder = problem?.user_id;
	const matchBy = this.getNodeParameter('matchBy', itemIndex, 'email') as string;
	if (matchBy === 'email') return problem?.code === 'email_taken' ? holder : undefined;
	if (problem?.code === 'external_id_taken') return holder;
	if (problem?.code !== 'email_taken') return undefined;
	// The LMS names the email's holder first; the user to update is the external ID's, if any.
	const [byExternalId] = await lmsApiList.call(this, '/users', { returnAll: false, limit: 1, qs: { external_id: body.external_id }, itemIndex });
	return typeof byExternalId?.id === 'string' ? byExternalId.id : undefined;
}

async function updateMatched(this: IExecuteFunctions, error: unknown, entry: BatchEntry): Promise<IDataObject> {
	const userId = await matchedUserId.call(this, error, entry);
	if (userId === undefined) throw asNodeError(this.getNode(), error, entry.itemIndex);
	// Matched by email, the email is what matched (in any case): it stays as the LMS has it.
	const { email, ...changes } = entry.body;
	const matchBy = this.getNodeParameter('matchBy', entry.itemIndex, 'email') as string;
	return await patchUser.call(this, userId, matchBy === 'email' ? changes : { email, ...changes }, entry.itemIndex);
}

async function createOrUpdate(this: IExecuteFunctions, entry: BatchEntry): Promise<IDataObject> {
	try {
		return await lmsApiRequest.call(this, { method: 'POST', endpoint: '/users', body: entry.body, itemIndex: entry.itemIndex });
	} catch (error) {
		return await updateMatched.call(this, error, entry);
	}
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return await createOrUpdate.call(this, { itemIndex, body: bodyOf.call(this, itemIndex) });
}

export async function executeMany(this: IExecuteFunctions, itemIndexes: number[]): Promise<LmsItemOutcome[]> {
	return await createInBatch.call(this, {
		endpoint: '/users',
		label: 'a user',
		itemIndexes,
		read: bodyOf,
		one: createOrUpdate,
		refused: updateMatched,
	});
}
