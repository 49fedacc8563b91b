import { listEndpoints } from '../../webhooks/service';
import type { PageHandler } from '../pages';
import { refusedFor } from '../session';
import { viewerOf } from '../viewer';
import { submittedAgain, type EndpointForm } from './form';
import { EVENT_CHOICES, WEBHOOKS, endpointView } from './views';

/** GET /settings/webhooks: the organization's endpoints and the form to add one (as submitted, after a refusal). */
export const webhooksPage: PageHandler = async (req, res, { views }) => {
	const back = refusedFor(req, WEBHOOKS);
	const form: EndpointForm = back ? submittedAgain(back) : {};
	const endpoints = await listEndpoints(viewerOf(res).organization.id);
	await views.render(req, res, 'webhooks.njk', {
		eventChoices: EVENT_CHOICES,
		form: { url: form.url ?? '', events: form.events ?? [], description: form.description ?? '', error: form.error },
		endpoints: endpoints.map(endpointView),
	});
};
