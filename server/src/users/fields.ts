import Joi from 'joi';

import { hasControlCharacters } from '../common/text';
import { EMAIL_MAX_LENGTH, EMAIL_RULE, isEmailAddress } from './email';
import { EXTERNAL_ID_MAX_LENGTH, EXTERNAL_ID_RULE, isExternalId } from './external-id';

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
	.messages({ 'string.plain': NAME_RULE, 'string.min': NAME_RULE, 'string.max': NAME_RULE, 'string.empty': NAME_RULE });

export const emailField = Joi.string()
	.trim()
	.max(EMAIL_MAX_LENGTH)
	.custom((value: string, helpers) => (isEmailAddress(value) ? value : helpers.error('string.email')))
	.messages({ 'string.email': `{{#label}} must be ${EMAIL_RULE}`, 'string.max': `{{#label}} must be ${EMAIL_RULE}`, 'string.empty': `{{#label}} must be ${EMAIL_RULE}` });

/** A string, or null for none (PATCH: clears it). */
export const externalIdField = Joi.string()
	.allow(null)
	.max(EXTERNAL_ID_MAX_LENGTH)
	.custom((value: string, helpers) => (isExternalId(value) ? value : helpers.error('string.externalId')))
	.messages({
		'string.externalId': `{{#label}} must be ${EXTERNAL_ID_RULE}`,
		'string.max': `{{#label}} must be ${EXTERNAL_ID_RULE}`,
		'string.empty': `{{#label}} must be ${EXTERNAL_ID_RULE}, or null for none`,
	});
