import { revokeKey } from '../../api-keys/lifecycle';
import type { PageHandler } from '../pages';
import { redirectAfterSave } from '../session';
import { asViewer } from '../viewer';
import { API_KEYS } from './keys-page';
import { refused } from './outcomes';

/** POST /settings/api-keys/{id}/revoke: the key stops now, and the webhook endpoints it owns with it (SPEC §19). */
export const revokeKeyForm: PageHandler = async (req, res, deps) => {
	try {
		const apiKey = await revokeKey({ keyId: req.params.keyId, ...asViewer(req, res) });
		const disabled = apiKey.disabledEndpoints ?? [];
		const endpoints = disabled.length > 0 ? ` Its webhook endpoints are disabled: ${disabled.map((e) => e.url).join(', ')}.` : '';
		req.session.notice = { kind: 'success', text: `Revoked ${apiKey.label} (${apiKey.masked}). It stopped working immediately.${endpoints}` };
		await redirectAfterSave(req, res, API_KEYS);
	} catch (err) {
		await refused(req, res, deps, err);
	}
};
