import { deleteEndpoint } from '../../webhooks/service';
import { notFound, type PageHandler } from '../pages';
import { asViewer } from '../viewer';
import { WEBHOOKS, noticeThen } from './views';

/** POST /settings/webhooks/{id}/delete: nothing more is sent to it, pending retries included. */
export const deleteEndpointForm: PageHandler = async (req, res, deps) => {
	const endpoint = await deleteEndpoint({ id: req.params.endpointId, ...asViewer(req, res) });
	if (!endpoint) return notFound(req, res, deps);
	await noticeThen(req, res, WEBHOOKS, 'success', `Deleted the webhook endpoint ${endpoint.url}: nothing more is sent to it.`);
};
