import Joi from 'joi';

import { idParam } from '../http/validate';
import { externalIdField, nameField } from '../users/fields';
import { MEMBERS_PER_CHANGE } from './members';
import { GROUP_DESCRIPTION_MAX } from './write';

/** A group's writable fields as POST and PATCH take them (the domain checks them again for the CLI). */
export const groupNameField = nameField.description('1–200 characters of plain text, unique in the organization without regard to case; spaces around it are trimmed.');

export const descriptionField = Joi.string()
	.allow(null)
	.max(GROUP_DESCRIPTION_MAX)
	.messages({ 'string.max': `{{#label}} must be at most ${GROUP_DESCRIPTION_MAX} characters, or null for none` })
	.description(`Up to ${GROUP_DESCRIPTION_MAX} characters; null for none.`);

export const groupExternalIdField = externalIdField.description(
	"The identity provider's or HR system's id for the group: 1–255 printable characters, unique in the organization; null for none.",
);

/** `{ "user_ids": [...] }`: 1 to 1,000 user ids, for adding or removing members. */
export const userIdsBody = Joi.object<{ user_ids: string[] }>({
	user_ids: Joi.array()
		.items(Joi.string().max(40).description('A user id (usr_…).'))
		.min(1)
		.max(MEMBERS_PER_CHANGE)
		.required()
		.messages({ 'array.max': `{{#label}} must hold at most ${MEMBERS_PER_CHANGE} ids; split the list`, 'array.min': '{{#label}} must hold at least one id' })
		.description(`1 to ${MEMBERS_PER_CHANGE} user ids of the organization.`),
})
	.required()
	.unknown(false);

/** `member`: the groups holding this user. */
export const memberParam = idParam('user').description('Only the groups this user is a member of.');
