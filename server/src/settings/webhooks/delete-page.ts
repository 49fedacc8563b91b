import { notFound, type PageHandler } from '../pages';
import { endpointOfPage, endpointView } from './views';

/** GET /settings/webhooks/{id}/delete: what deleting does, and a button to do it. */
export const deleteEndpointPage: PageHandler = async (req, res, deps) => {
	const endpoint = await endpointOfPage(res, req.params.endpointId);
	if (!endpoint) return notFound(req, res, deps);
	await deps.views.render(req, res, 'confirm-webhook.njk', { endpoint: endpointView(endpoint) });
};
