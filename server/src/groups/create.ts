import Joi from 'joi';

import { created, type WriteHandler } from '../http/answer';
import { parseBody } from '../http/validate';
import { descriptionField, groupExternalIdField, groupNameField } from './fields';
import { serializeGroup } from './serialize';
import { createGroup } from './write';

export const createGroupBody = Joi.object<{ name: string; description?: string | null; external_id?: string | null }>({
	name: groupNameField.required(),
	description: descriptionField,
	external_id: groupExternalIdField,
})
	.required()
	.unknown(false);

/** POST /api/v1/groups (SPEC §20). */
export const createGroupEndpoint: WriteHandler = async ({ body, caller }) => {
	const { name, description = null, external_id = null } = parseBody(createGroupBody, body);
	const group = await createGroup(caller.organization.id, { name, description, externalId: external_id });
	return created(`/api/v1/groups/${group.id}`, serializeGroup(group));
};
