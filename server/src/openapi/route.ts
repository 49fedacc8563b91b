import type { RequestHandler } from 'express';

import type { RouteTable } from '../http/routes';
import { openApiDocument } from './document';

const body = JSON.stringify(openApiDocument());

/** Public: integrators and code generators read it before they have a key. */
const serveDocument: RequestHandler = (_req, res) => {
	res.type('application/json').send(body);
};

export const openApiRoutes: RouteTable = {
	'/openapi.json': { get: { handlers: [serveDocument] } },
};
