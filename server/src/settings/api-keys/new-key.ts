import { isWebhookSecret } from '../one-time-key';
import type { PageHandler } from '../pages';
import { redirectAfterSave, saveSession } from '../session';
import { API_KEYS } from './keys-page';

/**
 * GET /settings/api-keys/new-key: the one page that shows a full key, once. The secret is taken
 * out of the session as it is rendered, and the page may not be stored by any cache, so reloading
 * it or coming back to it leads to the keys list.
 */
export const newKeyPage: PageHandler = async (req, res, { views, oneTimeKeys }) => {
	const shown = await oneTimeKeys.take(req);
	// A webhook secret belongs to its own page (settings/webhooks/secret.ts), never shown here.
	if (!shown || isWebhookSecret(shown)) return redirectAfterSave(req, res, API_KEYS);
	// Forgotten by the session before the page leaves, not after.
	await saveSession(req);
	await views.render(req, res, 'new-key.njk', { key: shown });
};
