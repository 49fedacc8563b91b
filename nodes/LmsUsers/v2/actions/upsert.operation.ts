import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { createInBatch, type BatchEntry } from '../../../shared/batch';
import { MAX_BATCH_ITEMS, outcomeOf, type LmsItemOutcome } from '../../../shared/execute';
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
		description:
			'How an existing user is recognised. A new person is created as a student or instructor; a matched one gets the name, role and external ID (or, matched by external ID, email) given here; someone already so is output unchanged. Up to 100 items are matched in one lookup and the new ones created in one request. Admins are changed in the LMS only. Needs write:users and read:users.',
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

/** Admins and super admins: never changed through the API, so never passed off as updated. */
const PROTECTED_ROLES = new Set(['admin', 'super_admin']);

/** How one lookup finds the people of many items: by email (any case) or by external ID (exact). */
interface MatchKey {
	/** The API's field, in a body and in a user. */
	field: 'email' | 'external_id';
	/** The form both sides are compared in. */
	normal: (value: string) => string;
	/** Values one lookup can carry (an email list is split on commas, so none with one). */
	usable: (value: string) => boolean;
	/** The list filter for these values. */
	query: (values: string[]) => IDataObject;
}

const MATCH_KEYS: Record<string, MatchKey> = {
	email: { field: 'email', normal: (value) => value.toLowerCase(), usable: (value) => !value.includes(','), query: (values) => ({ email: values.join(',') }) },
	// An external ID may hold commas: the filter is repeated, one value each (external_id=a&external_id=b).
	externalId: { field: 'external_id', normal: (value) => value, usable: () => true, query: (values) => ({ external_id: values }) },
};

/**
 * The people of up to 100 input items are looked up in one request (`users?email=a,b,c`, or
 * `users?external_id=a&external_id=b`): someone who exists with the same fields is output as they
 * are, someone who exists with other fields is updated (one PATCH each), and the rest are created
 * in one batch. A roster re-run therefore costs about two requests per hundred people, not one
 * per person. An LMS without that filter (400) gets the create-first path.
 */
async function matchInOneLookup(this: IExecuteFunctions, itemIndexes: number[], key: MatchKey): Promise<LmsItemOutcome[] | undefined> {
	const outcomes: LmsItemOutcome[] = [];
	const bodies = new Map<number, IDataObject>();
	for (const [at, itemIndex] of itemIndexes.entries()) {
		try {
			bodies.set(at, bodyOf.call(this, itemIndex));
		} catch (error) {
			outcomes[at] = { error };
		}
	}
	const keyOf = (record: IDataObject) => key.normal(String(record[key.field] ?? ''));
	const values = [...new Set([...bodies.values()].map(keyOf).filter((value) => value !== '' && key.usable(value)))];
	if (values.length === 0) return undefined;
	let existing: IDataObject[];
	try {
		existing = await lmsApiList.call(this, '/users', { returnAll: false, limit: MAX_BATCH_ITEMS, qs: key.query(values), itemIndex: itemIndexes[0] });
	} catch {
		// An LMS without the list filter (400), or a failure the create-first path meets and reports item by item.
		return undefined;
	}
	const byKey = new Map(existing.map((user) => [keyOf(user), user]));
	const toCreate: number[] = [];
	for (const [at, body] of bodies) {
		const itemIndex = itemIndexes[at];
		const user = byKey.get(keyOf(body));
		// Matched by email, the email is what matched (in any case): it stays as the LMS has it.
		const changes = key.field === 'email' ? Object.fromEntries(Object.entries(body).filter(([field]) => field !== 'email')) : body;
		if (!user) {
			toCreate.push(at);
		} else if (Object.entries(changes).every(([field, value]) => user[field] === value) && !PROTECTED_ROLES.has(String(user.role))) {
			outcomes[at] = { records: user };
		} else {
			outcomes[at] = await outcomeOf.call(this, async () => await patchUser.call(this, String(user.id), changes, itemIndex), itemIndex);
		}
	}
	if (toCreate.length) {
		const created = await createInBatch.call(this, { ...createOptions, itemIndexes: toCreate.map((at) => itemIndexes[at]), read: (itemIndex) => bodies.get(itemIndexes.indexOf(itemIndex))! });
		toCreate.forEach((at, i) => (outcomes[at] = created[i]));
	}
	return outcomes;
}

const createOptions = { endpoint: '/users', label: 'a user', read: bodyOf, one: createOrUpdate, refused: updateMatched };

export async function executeMany(this: IExecuteFunctions, itemIndexes: number[]): Promise<LmsItemOutcome[]> {
	const matchBy = this.getNodeParameter('matchBy', itemIndexes[0], 'email') as string;
	const sameMatch = itemIndexes.every((itemIndex) => this.getNodeParameter('matchBy', itemIndex, 'email') === matchBy);
	const key = MATCH_KEYS[matchBy];
	const matched = key && sameMatch && itemIndexes.length > 1 ? await matchInOneLookup.call(this, itemIndexes, key) : undefined;
	return matched ?? (await createInBatch.call(this, { ...createOptions, itemIndexes }));
}
