import Joi from 'joi';

import { ok, type WriteHandler } from '../http/answer';
import { parseBody } from '../http/validate';
import { changeUser } from './change';
import { emailField, externalIdField, nameField, roleField } from './fields';
import { USER_STATUSES, type Role, type UserStatus } from './model';
import { serializeUser } from './serialize';

/** Any of `{ name?, email?, role?, external_id?, status? }`; `external_id: null` clears it. */
export const updateUserBody = Joi.object<{ name?: string; email?: string; role?: Role; external_id?: string | null; status?: UserStatus }>({
	name: nameField,
	email: emailField,
	role: roleField,
	external_id: externalIdField,
	status: Joi.string().valid(...USER_STATUSES),
})
	.required()
	.unknown(false);

/** PATCH /api/v1/users/{id} (SPEC §16): changes, deactivation (one-step offboarding) and reactivation. */
export const updateUser: WriteHandler = async ({ body, params, caller }) => {
	const { name, email, role, external_id: externalId, status } = parseBody(updateUserBody, body);
	const { user } = await changeUser(caller.organization.id, params.id, { name, email, role, externalId, status }, 'api');
	return ok(serializeUser(user));
};
