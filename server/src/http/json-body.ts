import express, { type RequestHandler } from 'express';

import { problems } from '../common/problem';

/** Request bodies are small: the largest single one is a webhook endpoint's URL and description. */
export const BODY_LIMIT = '16kb';

/** A batch holds up to 100 bodies (http/batch.ts). */
export const BATCH_BODY_LIMIT = '1mb';

/**
 * A request with no body at all (`curl -X POST`: no Content-Length, or 0, and no chunks), whatever
 * its Content-Type, is read as `{}` (SPEC §22): an action that takes no fields needs none, and a
 * route that needs fields answers what is missing. Anything else must be `application/json` (a
 * charset parameter is fine).
 */
const requireJsonContentType: RequestHandler = (req, _res, next) => {
	if (bodiless(req.headers)) {
		req.body = {};
		next();
		return;
	}
	if (req.is('application/json') !== 'application/json') throw problems.unsupportedMediaType();
	next();
};

function bodiless(headers: { 'transfer-encoding'?: string; 'content-length'?: string }): boolean {
	return headers['transfer-encoding'] === undefined && (headers['content-length'] === undefined || headers['content-length'] === '0');
}

/**
 * For routes that take a body; runs after authentication and scope, as the order of checks
 * requires. Parse errors go to the central handler (400 malformed_json, 413 naming the limit).
 */
export function jsonBodyOf(limit: string): RequestHandler[] {
	return [requireJsonContentType, express.json({ limit, strict: true, type: 'application/json' })];
}

