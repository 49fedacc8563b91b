import { createKey } from '../../api-keys/lifecycle';
import type { PageHandler } from '../pages';
import { asViewer, listField, textField } from '../viewer';
import { refused, showOnce } from './outcomes';

/** POST /settings/api-keys: a new key, shown once on its own page; a refusal is said with the form as typed. */
export const createKeyForm: PageHandler = async (req, res, deps) => {
	const label = textField(req, 'label');
	const scopes = listField(req, 'scopes');
	const expires = textField(req, 'expires');
	try {
		const { apiKey, secret } = await createKey({ label, scopes, expires, ...asViewer(req, res) });
		await showOnce(req, res, deps.oneTimeKeys, { apiKey, secret }, 'created');
	} catch (err) {
		await refused(req, res, deps, err, { label, scopes, expires });
	}
};
