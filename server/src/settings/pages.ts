import { Router, type Request, type RequestHandler, type Response } from 'express';

import type { WebhookConfig } from '../config';
import type { OneTimeKeyBox } from './one-time-key';
import type { Views } from './views';

/** What every settings page is handed: the templates, the box that shows a secret once, the webhook settings. */
export interface PageDeps {
	views: Views;
	oneTimeKeys: OneTimeKeyBox;
	webhooks: WebhookConfig;
}

/** One page, or one form it posts: a small handler in a file of its own (settings/api-keys/, settings/webhooks/). */
export type PageHandler = (req: PageRequest, res: Response, deps: PageDeps) => Promise<void>;

/** A page's request: the table's paths name plain parameters only (`:keyId`, no wildcard), which Express gives as strings. */
type PageRequest = Request<Record<string, string>>;

/**
 * A section of the settings pages as data, as the API's route tables are (http/routes.ts): the
 * checks every address under `base` passes first (sign-in, role, plan), then path → method → the
 * page's handler. Paths are mounted in the table's order, so a fixed path (`/secret`) listed before
 * a parameter (`/:endpointId`) is the one that answers.
 */
export interface PageTable {
	base: string;
	guards: (deps: PageDeps) => RequestHandler[];
	pages: Record<string, { get?: PageHandler; post?: PageHandler }>;
}

/** The section's router, mounted by settings/router.ts in its place among the others. */
export function pageRouter(table: PageTable, deps: PageDeps): Router {
	const router = Router();
	router.use(table.base, ...table.guards(deps));
	for (const [path, methods] of Object.entries(table.pages)) {
		for (const method of ['get', 'post'] as const) {
			const handler = methods[method];
			if (handler) router[method](table.base + path, (req, res) => handler(req as PageRequest, res, deps));
		}
	}
	return router;
}

/** The page a missing or foreign record answers. */
export const notFound = (req: Request, res: Response, { views }: PageDeps): Promise<void> => views.render(req, res, 'not-found.njk', {}, 404);
