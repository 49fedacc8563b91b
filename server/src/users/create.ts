import Joi from 'joi';

import { created, type WriteHandler } from '../http/answer';
import { parseBody } from '../http/validate';
import { nameField, emailField, externalIdField, roleField } from './fields';
import type { Role } from './model';
import { serializeUser } from './serialize';
import { createUser } from './service';

/**
 * `{ name, email, role?, external_id? }`. Any of the four roles is well-formed here; admin and
 * super_admin are refused by the rule (422 role_not_allowed), not as malformed input.
 */
export const createUserBody = Joi.object<{ name: string; email: string; role?: Role; external_id?: string | null }>({
	name: nameField.required(),
	email: emailField.required(),
	role: roleField,
	external_id: externalIdField,
})
	.required()
	.unknown(false);

/** POST /api/v1/users (SPEC §16), and each item of POST /api/v1/users/batch. */
export const createUserEndpoint: WriteHandler = async ({ body, caller }) => {
	const { name, email, role = 'student', external_id: externalId } = parseBody(createUserBody, body);
	const user = await createUser({ organization: caller.organization, name, email, role, externalId, door: 'api' });
	return created(`/api/v1/users/${user.id}`, serializeUser(user));
};
