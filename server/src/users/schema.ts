import { ids, nullableTimestamp, record, timestamp } from '../common/json-schema';
import { EXTERNAL_ID_MAX_LENGTH } from './external-id';
import { ROLES, USER_STATUSES } from './model';
import { PROFILE_MAX_LENGTH } from './profile';
import { USERNAME_MAX_LENGTH } from './username';

// What serializeUser (./serialize.ts) returns: the OpenAPI document's User.
const profileField = (description: string) => ({ type: ['string', 'null'], minLength: 1, maxLength: PROFILE_MAX_LENGTH, description });

export const userSchema = record(
	{
		id: ids.user,
		name: { type: 'string' },
		email: { type: 'string', format: 'email' },
		username: {
			type: 'string',
			minLength: 1,
			maxLength: USERNAME_MAX_LENGTH,
			description:
				'SCIM’s userName: the e-mail unless the identity provider set it apart (then it needs not be an e-mail, and a change of e-mail leaves it). Unique in the organization, ignoring case.',
		},
		role: { type: 'string', enum: [...ROLES] },
		status: { type: 'string', enum: [...USER_STATUSES], description: 'A deactivated user cannot sign in or be enrolled; their records stay.' },
		external_id: {
			type: ['string', 'null'],
			minLength: 1,
			maxLength: EXTERNAL_ID_MAX_LENGTH,
			description: 'The HR system’s or identity provider’s id for the person, unique within the organization; null if none.',
		},
		profile: record(
				{
					title: profileField('The job title (SCIM `title`).'),
					department: profileField('The department (SCIM enterprise `department`); `users?department=` finds it ignoring case.'),
					employee_number: profileField('The employee number (SCIM enterprise `employeeNumber`).'),
					manager_id: profileField('The manager’s id as the identity provider sent it (SCIM enterprise `manager.value`).'),
				},
				'What the identity provider says of the person (SCIM core `title` and the enterprise extension); each null until set.',
			),
		created_at: timestamp,
		updated_at: timestamp,
		deactivated_at: { ...nullableTimestamp, description: 'When the user was deactivated; null while active.' },
	},
	'A person in the organization.',
);

