import { record, timestamp } from '../common/json-schema';
import { ROLES } from '../users/model';
import { EVENT_TYPES } from './types';

// What serializeEvent and eventJson (./feed.ts) return: the OpenAPI document's Event; the feed's page and head.
export const eventSchema = record(
	{
		id: {
			type: 'string',
			pattern: '^evt_[0-9a-f]{28}$',
			examples: ['evt_19c2f0e4a7d10000000000000042'],
			description: "Ids sort in feed order (compare them as strings). They number the organization's own events only, so they tell nothing of other organizations' volume.",
		},
		type: { type: 'string', enum: [...EVENT_TYPES] },
		created_at: timestamp,
		data: {
			type: 'object',
			description: 'What the event is about.',
			additionalProperties: false,
			required: ['object'],
			properties: {
				object: {
					description:
						'The record as the API returned it right after the change: a User (user.*), an Enrollment (enrollment.*), a Certificate (certificate.*), a Group (group.created, group.updated, group.deleted) or a GroupMembership (group.member_added, group.member_removed).',
					oneOf: [
						{ $ref: '#/components/schemas/User' },
						{ $ref: '#/components/schemas/Enrollment' },
						{ $ref: '#/components/schemas/Certificate' },
						{ $ref: '#/components/schemas/Group' },
						{ $ref: '#/components/schemas/GroupMembership' },
					],
				},
				group_id: { type: 'string', description: 'group.member_added and group.member_removed only: the group, as in `object`.' },
				user_id: { type: 'string', description: 'group.member_added and group.member_removed only: the user, as in `object`.' },
				previous_attributes: {
					type: 'object',
					description: 'user.updated only: the old values of the fields that changed (name, email, username, role, external_id, profile).',
					additionalProperties: false,
					minProperties: 1,
					properties: {
						name: { type: 'string' },
						email: { type: 'string' },
						username: { type: 'string' },
						role: { type: 'string', enum: [...ROLES] },
						external_id: { type: ['string', 'null'] },
						profile: { type: 'object', description: 'The whole profile as it was.' },
					},
				},
			},
		},
	},
	'Something that happened in the organization.',
);

export const eventListSchema = record(
	{
		data: { type: 'array', items: { $ref: '#/components/schemas/Event' }, description: 'Oldest first.' },
		has_more: { type: 'boolean', description: 'More events are there already: ask again with after = the last id of data.' },
	},
	'A page of the event feed.',
);

export const feedHeadSchema = record(
	{
		after: {
			type: ['string', 'null'],
			pattern: '^evt_[0-9a-f]{28}$',
			description: 'The newest event the key can see, or null when there is none: pass it as `after` to read only what happens from now on.',
		},
	},
	'Where the event feed ends now, for this key.',
);

