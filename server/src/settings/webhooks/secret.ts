import { isWebhookSecret } from '../one-time-key';
import type { PageHandler } from '../pages';
import { redirectAfterSave, saveSession } from '../session';
import { WEBHOOKS } from './views';

/** GET /settings/webhooks/secret: the one page that shows a signing secret, once (the keys page's mechanism: settings/one-time-key.ts). */
export const secretPage: PageHandler = async (req, res, { views, oneTimeKeys }) => {
	const shown = await oneTimeKeys.take(req);
	if (!shown || !isWebhookSecret(shown)) return redirectAfterSave(req, res, WEBHOOKS);
	await saveSession(req);
	await views.render(req, res, 'webhook-secret.njk', { shown });
};
