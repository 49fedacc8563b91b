import { count, ids, record, timestamp } from '../common/json-schema';
import { EXTERNAL_ID_MAX_LENGTH } from '../users/external-id';

// What serializeGroup (./serialize.ts) returns: the OpenAPI document's Group.
export const groupSchema = record(
	{
		id: ids.group,
		name: { type: 'string', minLength: 1, maxLength: 200, description: 'Unique in the organization without regard to case.' },
		description: { type: ['string', 'null'], maxLength: 1000 },
		external_id: { type: ['string', 'null'], minLength: 1, maxLength: EXTERNAL_ID_MAX_LENGTH, description: "The identity provider's id for the group, unique in the organization; null if none." },
		member_count: count,
		created_at: timestamp,
		updated_at: timestamp,
	},
	'A set of users (a department, a site, a role): roster data, read:users / write:users.',
);

// The object of group.member_added and group.member_removed (./members.ts).
export const groupMembershipSchema = record({ group_id: ids.group, user_id: ids.user }, 'group.member_added / group.member_removed: who joined or left which group.');

// What addMembers (./members.ts) returns, answered as it is by POST …/members.
export const membersAddedSchema = record(
	{
		added: { type: 'array', items: ids.user, description: 'The users who became members, in the order given.' },
		unchanged: { type: 'array', items: ids.user, description: 'The users who were members already.' },
	},
	'What adding members did.',
);

// What removeMembers (./members.ts) returns, answered as it is by POST …/members/remove.
export const membersRemovedSchema = record(
	{
		removed: { type: 'array', items: ids.user, description: 'The users who were members and are no longer.' },
		unchanged: { type: 'array', items: ids.user, description: 'The users who were not members.' },
	},
	'What removing members did.',
);
