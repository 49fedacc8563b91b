import { notFound, type PageHandler } from '../pages';
import { refusedFor } from '../session';
import { submittedAgain } from './form';
import { EVENT_CHOICES, WEBHOOKS, endpointOfPage, endpointView } from './views';

/** GET /settings/webhooks/{id}/edit: the edit form, as stored or as submitted (after a refusal, with what was typed). */
export const editEndpointPage: PageHandler = async (req, res, deps) => {
	const stored = await endpointOfPage(res, req.params.endpointId);
	if (!stored) return notFound(req, res, deps);
	const endpoint = endpointView(stored);
	const back = refusedFor(req, `${WEBHOOKS}/${endpoint.id}/edit`);
	await deps.views.render(req, res, 'edit-webhook.njk', {
		endpoint,
		eventChoices: EVENT_CHOICES,
		form: back ? submittedAgain(back) : { url: endpoint.url, events: endpoint.events, description: endpoint.description ?? '' },
	});
};
