import Joi from 'joi';

import { hasControlCharacters } from '../common/text';
import { EMAIL_MAX_LENGTH, EMAIL_RULE, isEmailAddress } from './email';
import { EXTERNAL_ID_MAX_LENGTH, EXTERNAL_ID_RULE, isExternalId } from './external-id';
import { ROLES } from './model';

/**
 * A user's writable fields as the API's bodies take them (POST and PATCH), so both answer a bad
 * value with the same 400 entry. The domain checks them again (users/service.ts) for the CLI.
 */
const NAME_RULE = '{{#label}} must be 1 to 200 characters of plain text (no control characters such as tab or newline)';

export const nameField = Joi.string()
	.trim()
	.min(1)
	.max(200)
	.custom((value: string, helpers) => (hasControlCharacters(value) ? helpers.error('string.plain') : value))
	.messages({ 'string.plain': NAME_RULE, 'string.min': NAME_RULE, 'string.max': NAME_RULE, 'string.empty': NAME_RULE })
	.description('Plain text (no control characters); spaces around it are trimmed.');

export const emailField = Joi.string()
	.trim()
	.max(EMAIL_MAX_LENGTH)
	.custom((value: string, helpers) => (isEmailAddress(value) ? value : helpers.error('string.email')))
	.messages({ 'string.email': `{{#label}} must be ${EMAIL_RULE}`, 'string.max': `{{#label}} must be ${EMAIL_RULE}`, 'string.empty': `{{#label}} must be ${EMAIL_RULE}` })
	.meta({ openapi: { format: 'email' } })
	.description('Unique in the organization, compared without regard to case.');

/** Any of the four roles is well-formed; admin and super_admin are refused by the rule (422 role_not_allowed). */
export const roleField = Joi.string()
	.valid(...ROLES)
	.description('`student` or `instructor`: `admin` and `super_admin` are never granted through the API (422 `role_not_allowed`).');

/** A string, or null for none (PATCH: clears it). */
export const externalIdField = Joi.string()
	.allow(null)
	.max(EXTERNAL_ID_MAX_LENGTH)
	.custom((value: string, helpers) => (isExternalId(value) ? value : helpers.error('string.externalId')))
	.messages({
		'string.externalId': `{{#label}} must be ${EXTERNAL_ID_RULE}`,
		'string.max': `{{#label}} must be ${EXTERNAL_ID_RULE}`,
		'string.empty': `{{#label}} must be ${EXTERNAL_ID_RULE}, or null for none`,
	})
	.description('The HR system’s or identity provider’s id for the person: 1–255 printable characters, unique in the organization; null for none.');
