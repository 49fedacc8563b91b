import Joi from 'joi';

const SEARCH_MAX_LENGTH = 100;

/** `search`: 1 to 100 characters, matched as a prefix (search/words.ts). */
export const searchParam = () =>
	Joi.string()
		.min(1)
		.max(SEARCH_MAX_LENGTH)
		.messages({
			'string.empty': `{{#label}} must be 1 to ${SEARCH_MAX_LENGTH} characters`,
			'string.min': `{{#label}} must be 1 to ${SEARCH_MAX_LENGTH} characters`,
			'string.max': `{{#label}} must be 1 to ${SEARCH_MAX_LENGTH} characters`,
		})
		.description(
			`1 to ${SEARCH_MAX_LENGTH} characters. Only records with a word starting with this text, compared without regard to case: for users a word of the name or the e-mail address, ` +
				"for courses a word of the title, for enrollments and certificates a word of the student's name or e-mail or of the course's title. " +
				'Several words match consecutive words ("ada love" finds "Ada Lovelace"). Order and totals as without it.',
		);
