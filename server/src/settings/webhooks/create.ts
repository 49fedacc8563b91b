import { RuleError } from '../../common/rule-error';
import { createEndpoint } from '../../webhooks/service';
import type { PageHandler } from '../pages';
import { backToForm, redirectAfterSave } from '../session';
import { asViewer } from '../viewer';
import { submittedEndpoint } from './form';
import { WEBHOOKS } from './views';

/** POST /settings/webhooks: a new endpoint, its secret shown once on its own page; a refusal is said with the form as typed. */
export const createEndpointForm: PageHandler = async (req, res, { oneTimeKeys, webhooks }) => {
	const { form, error } = submittedEndpoint(req);
	if (error) return backToForm(req, res, WEBHOOKS, error, form);
	try {
		const { endpoint, secret } = await createEndpoint({
			...form,
			description: form.description || null,
			// A Super Admin reads every type: the endpoint has no key to bound it (webhooks/service.ts).
			apiKeyId: null,
			config: webhooks,
			...asViewer(req, res),
		});
		await oneTimeKeys.put(req, { kind: 'webhook', endpointId: endpoint.id, url: endpoint.url, action: 'created', secret });
		await redirectAfterSave(req, res, `${WEBHOOKS}/secret`);
	} catch (err) {
		// A refused URL (not public, unresolvable) or a full organization: said with the form.
		if (!(err instanceof RuleError)) throw err;
		await backToForm(req, res, WEBHOOKS, err.message, form);
	}
};
