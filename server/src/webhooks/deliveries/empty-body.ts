import Joi from 'joi';

/** The actions on an endpoint (retry, test, rotate) take no fields: an empty JSON object, or no body. */
export const emptyBody = Joi.object({}).unknown(false).description('No fields: send `{}`.');
