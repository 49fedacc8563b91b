import { setEndpointStatus } from '../../webhooks/set-status';
import { notFound, type PageHandler } from '../pages';
import { asViewer } from '../viewer';
import { WEBHOOKS, noticeThen, refusedOnEndpoint } from './views';

const SAID = {
	enabled: (url: string) => `Enabled ${url}: new events are sent to it again.`,
	disabled: (url: string) => `Disabled ${url}: nothing is sent to it until it is enabled again.`,
};

/** POST /settings/webhooks/{id}/enable and …/disable. */
export const setStatusForm =
	(status: 'enabled' | 'disabled'): PageHandler =>
	async (req, res, deps) => {
		try {
			const endpoint = await setEndpointStatus({ id: req.params.endpointId, status, ...asViewer(req, res) });
			if (!endpoint) return notFound(req, res, deps);
			await noticeThen(req, res, `${WEBHOOKS}/${endpoint.id}`, 'success', SAID[status](endpoint.url));
		} catch (err) {
			await refusedOnEndpoint(req, res, err);
		}
	};
