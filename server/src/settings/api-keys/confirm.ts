import { endpointsOfKey } from '../../webhooks/owners';
import { notFound, type PageHandler } from '../pages';
import { redirectAfterSave } from '../session';
import { viewerOf } from '../viewer';
import { API_KEYS, renderKeysPage } from './keys-page';
import { keyOfPage } from './outcomes';

/** GET /settings/api-keys/{id}/rotate and …/revoke: what the action does to the key, and a button to do it. */
export const confirmKeyAction: PageHandler = async (req, res, deps) => {
	const { views } = deps;
	const action = req.params.action;
	if (action !== 'rotate' && action !== 'revoke') return notFound(req, res, deps);
	const key = await keyOfPage(res, req.params.keyId);
	if (!key) return notFound(req, res, deps);
	if (key.status !== 'active' && !(action === 'revoke' && key.inGrace())) {
		req.session.notice = { kind: 'error', text: `The key ${key.label} is already ${key.status}.` };
		return redirectAfterSave(req, res, API_KEYS);
	}
	if (action === 'rotate' && key.isExpired()) {
		req.session.notice = { kind: 'error', text: `The key ${key.label} has expired: create a new key instead of rotating it, then revoke this one.` };
		return redirectAfterSave(req, res, API_KEYS);
	}
	if (action === 'rotate' && !viewerOf(res).hasApi) {
		return renderKeysPage(req, res, views, {}, 403);
	}
	await views.render(req, res, 'confirm.njk', {
		action,
		key: { id: key.id, label: key.label, masked: key.masked, scopes: key.scopeList, expiresAt: key.expiresAt },
		// Rotating hands them to the new key, revoking disables them (SPEC §19): say which.
		endpoints: await endpointsOfKey(key.id),
	});
};
