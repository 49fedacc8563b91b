import type { Request } from 'express';

/**
 * The origin absolute links start with: PUBLIC_URL when the operator set it (config.ts), else
 * the scheme and host the client reached (behind a trusted proxy, the proxy's). Links, SCIM
 * locations and the Settings page's Base URL all take it from here, so a forged Host header
 * never reaches them once PUBLIC_URL is set.
 */
export function publicOrigin(req: Request): string {
	const configured = (req.app.locals as { publicUrl?: string }).publicUrl;
	return configured ?? `${req.protocol}://${req.get('host') ?? ''}`;
}
