import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { outcomeOf, type LmsItemOutcome } from '../../../shared/execute';
import { lmsLocator, locatorId, requiredLocatorId } from '../../../shared/locators';
import { idempotencyKeyFor, lmsApiRequest, lmsProblemOf } from '../../../shared/transport';
import { groupIdOf, groupLocator, groupPath } from './shared';

/**
 * Add Members and Remove Members (SPEC §20): `POST /groups/{id}/members` answers `{ added,
 * unchanged }`, `POST /groups/{id}/members/remove` `{ removed, unchanged }`, each for up to 1,000
 * user IDs; an unknown ID refuses the whole request (422 `user_not_found` naming them). One user
 * per input item is the n8n way, so the input items of one group go in one request, and each item
 * gets its own share of the answer; an item whose user is unknown fails alone.
 */

type Change = 'add' | 'remove';

const CHANGES = {
	add: { path: 'members', done: 'added', verb: 'add to', operation: 'addMembers' },
	remove: { path: 'members/remove', done: 'removed', verb: 'remove from', operation: 'removeMembers' },
} as const;

/** What the API takes per request. */
const MEMBERS_PER_REQUEST = 1000;

function membersDescription(change: Change): INodeProperties[] {
	const { verb, operation } = CHANGES[change];
	const properties: INodeProperties[] = [
		groupLocator(`The group to ${verb}: pick it from the list, or give its ID (grp_…), its exact name or its external ID`),
		{
			displayName: 'Users From',
			name: 'usersFrom',
			type: 'options',
			default: 'item',
			options: [
				{
					name: 'One User per Item',
					value: 'item',
					description: 'Each input item names one user; the items of one group go in one request',
				},
				{
					name: 'List of User IDs',
					value: 'list',
					description: 'Each input item gives a list of user IDs (usr_…): comma-separated, or an expression giving an array',
				},
			],
			description: `Where the users to ${verb} the group come from`,
		},
		{
			...lmsLocator('user', {
				displayName: 'User',
				name: 'user',
				required: true,
				description: `The user to ${verb} the group (any role): pick by name, give the ID (usr_…), or the email address`,
			}),
			displayOptions: { show: { usersFrom: ['item'] } },
		},
		{
			displayName: 'User IDs',
			name: 'userIds',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'usr_4Jq2bX9mKc7LtPz1, usr_8Hn3cQx5Lm2VtR7k',
			description: `The IDs of the users to ${verb} the group: comma-separated, or an expression giving an array of IDs (for example the user_ids field of an earlier node)`,
			displayOptions: { show: { usersFrom: ['list'] } },
		},
	];
	return updateDisplayOptions({ show: { operation: [operation] } }, properties);
}

/** The user IDs of List of User IDs: a string with commas or spaces, or an array. */
async function listedUserIds(this: IExecuteFunctions, itemIndex: number): Promise<string[]> {
	const raw = this.getNodeParameter('userIds', itemIndex, '') as unknown;
	const values = Array.isArray(raw) ? raw : String(raw ?? '').split(/[\s,;]+/);
	const ids: string[] = [];
	for (const value of values) {
		const id = await locatorId.call(this, 'user', value, 'User IDs', itemIndex);
		if (id !== undefined && !ids.includes(id)) ids.push(id);
	}
	if (ids.length === 0) {
		throw new NodeOperationError(this.getNode(), 'User IDs is empty', {
			itemIndex,
			description: 'Give the IDs (usr_…) of the users, comma-separated, or map an array of IDs with an expression',
		});
	}
	return ids;
}

type Answer = Record<string, string[]>;

async function send(this: IExecuteFunctions, change: Change, groupId: string, userIds: string[], itemIndex: number, idempotencyKey?: string): Promise<Answer> {
	const endpoint = `${groupPath(groupId)}/${CHANGES[change].path}`;
	return (await lmsApiRequest.call(this, { method: 'POST', endpoint, body: { user_ids: userIds }, itemIndex, idempotencyKey })) as unknown as Answer;
}

const idsOf = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

/** One input item's list, in requests of up to 1,000 IDs, as one answer. */
async function changeList(this: IExecuteFunctions, change: Change, groupId: string, userIds: string[], itemIndex: number): Promise<IDataObject> {
	const done: string[] = [];
	const unchanged: string[] = [];
	for (let start = 0; start < userIds.length; start += MEMBERS_PER_REQUEST) {
		const chunk = userIds.slice(start, start + MEMBERS_PER_REQUEST);
		const key = start === 0 ? undefined : idempotencyKeyFor(this, `i${itemIndex}-${start}`, 'POST', `${groupPath(groupId)}/${CHANGES[change].path}`);
		const answer = await send.call(this, change, groupId, chunk, itemIndex, key);
		done.push(...idsOf(answer[CHANGES[change].done]));
		unchanged.push(...idsOf(answer.unchanged));
	}
	return { group_id: groupId, [CHANGES[change].done]: done, unchanged };
}

/** One input item: its group, and its user or its list. */
function executeFor(change: Change) {
	return async function (this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
		const groupId = await groupIdOf.call(this, itemIndex);
		const userIds =
			this.getNodeParameter('usersFrom', itemIndex, 'item') === 'list'
				? await listedUserIds.call(this, itemIndex)
				: [await requiredLocatorId.call(this, 'user', 'user', 'User', itemIndex)];
		return await changeList.call(this, change, groupId, userIds, itemIndex);
	};
}

interface Entry {
	at: number;
	itemIndex: number;
	userId: string;
}

/** The answer's share of one item's user. */
function shareOf(change: Change, groupId: string, userId: string, answer: Answer): IDataObject {
	const done = CHANGES[change].done;
	return {
		group_id: groupId,
		[done]: idsOf(answer[done]).includes(userId) ? [userId] : [],
		unchanged: idsOf(answer.unchanged).includes(userId) ? [userId] : [],
	};
}

/** The entries of one group in one request; items of users the LMS does not know fail alone, the others go again. */
async function changeGroup(this: IExecuteFunctions, change: Change, groupId: string, entries: Entry[], outcomes: LmsItemOutcome[]): Promise<void> {
	const endpoint = `${groupPath(groupId)}/${CHANGES[change].path}`;
	const items = `i${entries[0].itemIndex}-${entries[entries.length - 1].itemIndex}`;
	let pending = entries;
	for (let attempt = 0; pending.length > 0; attempt++) {
		const userIds = [...new Set(pending.map((entry) => entry.userId))];
		try {
			const key = idempotencyKeyFor(this, attempt === 0 ? items : `${items}-known${attempt}`, 'POST', endpoint);
			const answer = await send.call(this, change, groupId, userIds, pending[0].itemIndex, key);
			for (const entry of pending) outcomes[entry.at] = { records: shareOf(change, groupId, entry.userId, answer) };
			return;
		} catch (error) {
			const problem = lmsProblemOf(error);
			const unknown = new Set(problem?.code === 'user_not_found' ? (problem.user_ids ?? []) : []);
			const known = pending.filter((entry) => !unknown.has(entry.userId));
			if (unknown.size === 0 || known.length === pending.length || attempt > 0) {
				for (const entry of pending) outcomes[entry.at] = { error };
				return;
			}
			for (const entry of pending.filter((e) => unknown.has(e.userId))) {
				outcomes[entry.at] = {
					error: new NodeOperationError(this.getNode(), `User ${entry.userId} is not a user of the key's organization`, {
						itemIndex: entry.itemIndex,
						description: 'Check the User (pick it From List, or map the "id" of an earlier LMS Users node); the other items were sent without it',
					}),
				};
			}
			pending = known;
		}
	}
}

function executeManyFor(change: Change) {
	const one = executeFor(change);
	return async function (this: IExecuteFunctions, itemIndexes: number[]): Promise<LmsItemOutcome[]> {
		const outcomes: LmsItemOutcome[] = [];
		const byGroup = new Map<string, Entry[]>();
		// A group picked By Name or By External ID is looked up once per distinct value.
		const groups = new Map<string, Promise<string | undefined>>();
		for (const [at, itemIndex] of itemIndexes.entries()) {
			if (this.getNodeParameter('usersFrom', itemIndex, 'item') === 'list') {
				outcomes[at] = await outcomeOf.call(this, one, itemIndex);
				continue;
			}
			try {
				const picked = this.getNodeParameter('group', itemIndex, undefined, { extractValue: false });
				const cacheKey = JSON.stringify(picked);
				if (!groups.has(cacheKey)) groups.set(cacheKey, groupIdOf.call(this, itemIndex));
				const groupId = await groups.get(cacheKey)!;
				const userId = await requiredLocatorId.call(this, 'user', 'user', 'User', itemIndex);
				if (!groupId) throw new NodeOperationError(this.getNode(), 'Group is empty', { itemIndex });
				byGroup.set(groupId, [...(byGroup.get(groupId) ?? []), { at, itemIndex, userId }]);
			} catch (error) {
				// A failed lookup is not cached: the next item with that value tries again.
				groups.delete(JSON.stringify(this.getNodeParameter('group', itemIndex, undefined, { extractValue: false })));
				outcomes[at] = { error };
			}
		}
		for (const [groupId, entries] of byGroup) await changeGroup.call(this, change, groupId, entries, outcomes);
		return outcomes;
	};
}

export const membersOperation = (change: Change) => ({
	description: membersDescription(change),
	execute: executeFor(change),
	executeMany: executeManyFor(change),
});
