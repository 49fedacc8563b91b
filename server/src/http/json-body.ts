import express, { type RequestHandler } from 'express';

import { problems } from '../common/problem';

/** Request bodies are small: the only one the API takes is two ids. */
export const BODY_LIMIT = '16kb';

/** Refuses anything but `application/json` (a charset parameter is fine), including no body. */
const requireJsonContentType: RequestHandler = (req, _res, next) => {
	if (req.is('application/json') !== 'application/json') throw problems.unsupportedMediaType();
	next();
};

/**
 * For routes that take a body; runs after authentication and scope, as the order of checks
 * requires. Parse errors go to the central handler (400 malformed_json, 413).
 */
export const jsonBody: RequestHandler[] = [
	requireJsonContentType,
	express.json({ limit: BODY_LIMIT, strict: true, type: 'application/json' }),
];
