import express, { type RequestHandler } from 'express';

import { problems } from '../common/problem';

/** Request bodies are small: the largest single one is a webhook endpoint's URL and description. */
export const BODY_LIMIT = '16kb';

/** A batch holds up to 100 bodies (http/batch.ts). */
export const BATCH_BODY_LIMIT = '1mb';

/** Refuses anything but `application/json` (a charset parameter is fine), including no body. */
const requireJsonContentType: RequestHandler = (req, _res, next) => {
	if (req.is('application/json') !== 'application/json') throw problems.unsupportedMediaType();
	next();
};

/**
 * For routes that take a body; runs after authentication and scope, as the order of checks
 * requires. Parse errors go to the central handler (400 malformed_json, 413 naming the limit).
 */
export function jsonBodyOf(limit: string): RequestHandler[] {
	return [requireJsonContentType, express.json({ limit, strict: true, type: 'application/json' })];
}

