import Joi from 'joi';

import { isIdOf } from '../common/id-shapes';
import { problems } from '../common/problem';
import { ok, type WriteHandler } from '../http/answer';
import { parseBody } from '../http/validate';
import { descriptionField, groupExternalIdField, groupNameField } from './fields';
import { serializeGroup } from './serialize';
import { updateGroup } from './write';

export const updateGroupBody = Joi.object<{ name?: string; description?: string | null; external_id?: string | null }>({
	name: groupNameField,
	description: descriptionField,
	external_id: groupExternalIdField,
})
	.required()
	.unknown(false);

/** PATCH /api/v1/groups/{id}: any of name, description, external_id (null clears the last two). */
export const updateGroupEndpoint: WriteHandler = async ({ body, params, caller }) => {
	if (!isIdOf('group', params.id)) throw problems.notFound('group');
	const { name, description, external_id } = parseBody(updateGroupBody, body);
	const group = await updateGroup(caller.organization.id, params.id, { name, description, externalId: external_id });
	return ok(serializeGroup(group));
};
