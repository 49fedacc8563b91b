import { rotateSecret } from '../../webhooks/rotate-secret';
import { notFound, type PageHandler } from '../pages';
import { redirectAfterSave } from '../session';
import { asViewer } from '../viewer';
import { WEBHOOKS } from './views';

/** POST /settings/webhooks/{id}/rotate: a new signing secret, shown once; the old one signs beside it for 24 hours (SPEC §22). */
export const rotateSecretForm: PageHandler = async (req, res, deps) => {
	const rotated = await rotateSecret({ id: req.params.endpointId, config: deps.webhooks, ...asViewer(req, res) });
	if (!rotated) return notFound(req, res, deps);
	await deps.oneTimeKeys.put(req, {
		kind: 'webhook',
		endpointId: rotated.endpoint.id,
		url: rotated.endpoint.url,
		action: 'rotated',
		secret: rotated.secret,
		previousUntil: rotated.previousUntil.toISOString(),
	});
	await redirectAfterSave(req, res, `${WEBHOOKS}/secret`);
};
