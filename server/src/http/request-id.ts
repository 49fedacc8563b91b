import type { RequestHandler } from 'express';

import { randomBase62 } from '../common/ids';

/** Accept a caller's id only if it is short and plain, so it is safe to echo and to log. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'http' {
	interface IncomingMessage {
		/** Set by `requestId` on every request. */
		id?: string;
	}
}

/** The id set by `requestId`. */
export function requestIdOf(req: { id?: unknown }): string {
	return typeof req.id === 'string' ? req.id : 'unknown';
}

/** Echoes a sane incoming `X-Request-Id`, else makes one, and sets it on every response. */
export const requestId: RequestHandler = (req, res, next) => {
	const incoming = req.get('x-request-id');
	const id = incoming && SANE_REQUEST_ID.test(incoming) ? incoming : `req_${randomBase62(20)}`;
	req.id = id;
	res.setHeader('X-Request-Id', id);
	next();
};
