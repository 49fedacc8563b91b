import type { ApiKey } from './model';

/** The key as the CLI's --json and the settings page describe it; never the secret. */
export function keyJson(apiKey: ApiKey, secret?: string) {
	return {
		id: apiKey.id,
		label: apiKey.label,
		scopes: apiKey.scopeList,
		status: apiKey.status,
		masked: apiKey.masked,
		created_at: apiKey.createdAt.toISOString(),
		// Only on keys that have one, so the documented shape of the others stays exactly as it was.
		...(apiKey.expiresAt ? { expires_at: apiKey.expiresAt.toISOString() } : {}),
		// A rotated key that keeps working for a while (SPEC §22): until when.
		...(apiKey.inGrace() ? { grace_until: apiKey.graceUntil!.toISOString() } : {}),
		...(secret ? { key: secret } : {}),
	};
}
