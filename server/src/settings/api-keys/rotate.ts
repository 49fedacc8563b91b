import { rotateKey } from '../../api-keys/lifecycle';
import type { PageHandler } from '../pages';
import { asViewer } from '../viewer';
import { refused, showOnce } from './outcomes';

/** POST /settings/api-keys/{id}/rotate: the new key shown once; the old one works on for `expire_old_after` hours (SPEC §22). */
export const rotateKeyForm: PageHandler = async (req, res, deps) => {
	try {
		const expireOldAfter = (req.body as Record<string, unknown>)?.expire_old_after;
		const issued = await rotateKey({ keyId: req.params.keyId, ...asViewer(req, res), expireOldAfter });
		await showOnce(req, res, deps.oneTimeKeys, issued, 'rotated');
	} catch (err) {
		await refused(req, res, deps, err);
	}
};
