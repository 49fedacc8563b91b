import { RuleError } from '../../common/rule-error';
import { updateEndpoint } from '../../webhooks/edit';
import { notFound, type PageHandler } from '../pages';
import { backToForm } from '../session';
import { asViewer } from '../viewer';
import { submittedEndpoint } from './form';
import { WEBHOOKS, endpointOfPage, noticeThen } from './views';

/** POST /settings/webhooks/{id}/edit: an edit keeps the id, the secret and the delivery log (SPEC §22); a new URL passes the URL policy again. */
export const editEndpointForm: PageHandler = async (req, res, deps) => {
	const endpoint = await endpointOfPage(res, req.params.endpointId);
	if (!endpoint) return notFound(req, res, deps);
	const { form, error } = submittedEndpoint(req);
	if (error) return backToForm(req, res, `${WEBHOOKS}/${endpoint.id}/edit`, error, form);
	try {
		const edited = await updateEndpoint({ id: endpoint.id, change: form, config: deps.webhooks, ...asViewer(req, res) });
		if (!edited) return notFound(req, res, deps);
		await noticeThen(req, res, `${WEBHOOKS}/${edited.id}`, 'success', `Saved ${edited.url}. Its ID and signing secret are unchanged.`);
	} catch (err) {
		// A refused URL: said with the form, which keeps what was typed; nothing changed.
		if (!(err instanceof RuleError)) throw err;
		await backToForm(req, res, `${WEBHOOKS}/${endpoint.id}/edit`, err.message, form);
	}
};
