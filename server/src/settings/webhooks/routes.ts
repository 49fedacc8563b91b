import type { RequestHandler } from 'express';

import { notFound, type PageTable } from '../pages';
import { requireSignIn, requireSuperAdmin, viewerOf } from '../viewer';
import { createEndpointForm } from './create';
import { deleteEndpointForm } from './delete';
import { deleteEndpointPage } from './delete-page';
import { deliveryPage } from './delivery';
import { editEndpointForm } from './edit';
import { editEndpointPage } from './edit-page';
import { endpointPage } from './endpoint';
import { webhooksPage } from './list';
import { redeliverForm } from './redeliver';
import { rotateSecretForm } from './rotate';
import { secretPage } from './secret';
import { setStatusForm } from './status';
import { testEventForm } from './test-event';
import { WEBHOOKS } from './views';

/**
 * Settings → Webhooks (SPEC §12, §19, §22): the organization's endpoints, adding one (its secret
 * shown once) and, on each endpoint's page, editing it (same id and secret), disable and enable, a
 * test event, secret rotation (shown once), delete behind a confirmation, and its deliveries with
 * their attempts and Redeliver. Every change goes through the same webhooks/ functions as the API,
 * with the same rules and audit; the pages only turn forms into calls and results into pages.
 * Super Admins only, and Enterprise only, like the API (a page that is not there for the plan).
 */
export const webhookPages: PageTable = {
	base: WEBHOOKS,
	guards: (deps) => {
		const enterpriseOnly: RequestHandler = (req, res, next) => (viewerOf(res).hasApi ? next() : notFound(req, res, deps));
		return [requireSignIn, requireSuperAdmin(deps.views), enterpriseOnly];
	},
	pages: {
		'': { get: webhooksPage, post: createEndpointForm },
		'/secret': { get: secretPage },
		'/:endpointId/edit': { get: editEndpointPage, post: editEndpointForm },
		'/:endpointId/enable': { post: setStatusForm('enabled') },
		'/:endpointId/disable': { post: setStatusForm('disabled') },
		'/:endpointId/test': { post: testEventForm },
		'/:endpointId/rotate': { post: rotateSecretForm },
		'/:endpointId/delete': { get: deleteEndpointPage, post: deleteEndpointForm },
		// Each endpoint's page: after the fixed paths above (`/secret`).
		'/:endpointId': { get: endpointPage },
		'/:endpointId/deliveries/:deliveryId': { get: deliveryPage },
		'/:endpointId/deliveries/:deliveryId/redeliver': { post: redeliverForm },
	},
};
