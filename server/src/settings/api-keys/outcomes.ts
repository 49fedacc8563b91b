import type { Request, Response } from 'express';

import { KeyRuleError } from '../../api-keys/errors';
import type { IssuedKey } from '../../api-keys/lifecycle';
import { ApiKey } from '../../api-keys/model';
import type { OneTimeKeyBox } from '../one-time-key';
import type { PageDeps } from '../pages';
import { notFound } from '../pages';
import { backToForm, redirectAfterSave } from '../session';
import { viewerOf } from '../viewer';
import { API_KEYS } from './keys-page';

/**
 * What the key forms share. Every change goes through the key service, which holds the rules
 * (Enterprise only, label, scopes, audit); the pages only turn forms into calls and results into pages.
 */

/** A rule the service refused: said on the keys page in the person's terms, after a redirect (Back never resends). */
export async function refused(
	req: Request,
	res: Response,
	deps: PageDeps,
	err: unknown,
	form: { label: string; scopes: string[]; expires: string } | Record<string, never> = {},
): Promise<void> {
	if (!(err instanceof KeyRuleError)) throw err;
	if (err.code === 'key_not_found') return notFound(req, res, deps);
	await backToForm(req, res, API_KEYS, err.message, form);
}

/** Hands the new secret to the one page that shows it (POST → 303 → GET, so never twice). */
export async function showOnce(req: Request, res: Response, oneTimeKeys: OneTimeKeyBox, { apiKey, secret, movedEndpoints, previousUntil }: IssuedKey, action: 'created' | 'rotated') {
	await oneTimeKeys.put(req, {
		keyId: apiKey.id,
		label: apiKey.label,
		scopes: apiKey.scopeList,
		masked: apiKey.masked,
		action,
		secret,
		movedEndpoints: movedEndpoints ?? [],
		...(previousUntil ? { previousUntil: previousUntil.toISOString() } : {}),
	});
	await redirectAfterSave(req, res, `${API_KEYS}/new-key`);
}

/** One key of the viewer's organization; another organization's key is as good as absent. */
export function keyOfPage(res: Response, keyId: string): Promise<ApiKey | null> {
	return ApiKey.findOne({ where: { id: keyId, organizationId: viewerOf(res).organization.id } });
}
