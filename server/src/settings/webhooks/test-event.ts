import { queueTestEvent } from '../../webhooks/test-event';
import { notFound, type PageHandler } from '../pages';
import { viewerOf } from '../viewer';
import { WEBHOOKS, noticeThen, refusedOnEndpoint } from './views';

/** POST /settings/webhooks/{id}/test: a webhook.test event for this endpoint only. */
export const testEventForm: PageHandler = async (req, res, deps) => {
	try {
		const delivery = await queueTestEvent(viewerOf(res).organization.id, req.params.endpointId);
		if (!delivery) return notFound(req, res, deps);
		await noticeThen(req, res, `${WEBHOOKS}/${delivery.endpointId}`, 'success', `A webhook.test event (${delivery.eventId}) is on its way: reload this page to see its delivery.`);
	} catch (err) {
		await refusedOnEndpoint(req, res, err);
	}
};
