import { Router } from 'express';

import { certificateRoutes } from '../certificates/routes';
import { courseRoutes } from '../courses/routes';
import { enrollmentRoutes } from '../enrollments/routes';
import { eventRoutes } from '../events/routes';
import { openApiRoutes } from '../openapi/route';
import { userRoutes } from '../users/routes';
import { webhookRoutes } from '../webhooks/routes';
import type { AppDeps } from './deps';
import { mountRoutes } from './routes';

/** Everything under /api/v1, assembled from each component's route table. */
export function apiRouter(deps: Pick<AppDeps, 'config'>): Router {
	const router = Router();
	// Answers hold an organization's records: no browser or proxy cache may keep a copy.
	// (Errors set it themselves in sendProblem, whichever router they come from.)
	router.use((_req, res, next) => {
		res.setHeader('Cache-Control', 'no-store');
		next();
	});
	for (const table of [userRoutes, courseRoutes, enrollmentRoutes, certificateRoutes, eventRoutes, webhookRoutes(deps), openApiRoutes]) {
		mountRoutes(router, table);
	}
	return router;
}
