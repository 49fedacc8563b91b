import { Router } from 'express';

import type { AppDeps } from '../http/deps';

/** The settings pages (/login, /logout, /settings, /settings/api-keys). */
export function createSettingsRouter(_deps: AppDeps): Router {
	return Router();
}
