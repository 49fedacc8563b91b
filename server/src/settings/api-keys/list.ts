import type { PageHandler } from '../pages';
import { renderKeysPage } from './keys-page';

/**
 * The key an identity provider (Okta, Entra ID) or an HR system provisions users and groups
 * with (SPEC §21, docs/provisioning.md): roster data, read and write, nothing else.
 */
const PROVISIONING_PRESET = { label: 'Identity provider (SCIM)', scopes: ['read:users', 'write:users'] };

/** GET /settings/api-keys: the keys, the audit log and the "New API key" form. */
export const keysPage: PageHandler = async (req, res, { views }) => {
	// A link may ask for the form filled in for a purpose (Settings → Connect an identity provider).
	await renderKeysPage(req, res, views, req.query.preset === 'provisioning' ? PROVISIONING_PRESET : {});
};
