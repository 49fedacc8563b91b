import Joi from 'joi';

export const SEARCH_MAX_LENGTH = 100;

/** `search`: 1 to 100 characters, matched as a prefix (search/words.ts). */
export const searchParam = () =>
	Joi.string()
		.min(1)
		.max(SEARCH_MAX_LENGTH)
		.messages({
			'string.empty': `{{#label}} must be 1 to ${SEARCH_MAX_LENGTH} characters`,
			'string.min': `{{#label}} must be 1 to ${SEARCH_MAX_LENGTH} characters`,
			'string.max': `{{#label}} must be 1 to ${SEARCH_MAX_LENGTH} characters`,
		});
