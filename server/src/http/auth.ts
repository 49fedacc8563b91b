import type { Request, Response } from 'express';

import type { Actor, Origin } from '../api-keys/audit';
import type { Scope } from '../api-keys/model';
import { authenticate, type Caller } from '../api-keys/authenticate';
import { problems } from '../common/problem';
import { hasApiAccess } from '../organizations/plan';

/**
 * Who is calling, checked in the order the spec fixes: authentication, then plan, then scope
 * (the limiter has already run; validation runs in the handler after these).
 */

const BEARER = /^Bearer +(\S+) *$/i;

/** The authenticated caller, as `checkCaller` left it on the response. */
export function callerOf(res: Response): Caller {
	const caller = res.locals.caller as Caller | undefined;
	if (!caller) throw new Error('callerOf() used on a route without a key check');
	return caller;
}

/** Who an audited change through the API is by: the calling key, in its organization. */
export function asCaller(caller: Caller): { organizationId: string; actor: Actor } {
	return { organizationId: caller.organization.id, actor: { kind: 'key', id: caller.apiKey.id, name: 'API key' } };
}

/** Where a request came from, as the audit log keeps it. */
export function originOf(req: Request): Required<Origin> {
	return { ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null };
}

/**
 * Resolves the bearer key on every request (no cache: a revoked key must fail at once), then the
 * plan, then the scope the operation needs (`by-handler`: the handler decides what the key's
 * scopes allow; `any-key`: none needed); leaves the caller on the response for `callerOf`.
 */
export async function checkCaller(req: Request, res: Response, scope: Scope | 'by-handler' | 'any-key'): Promise<void> {
	const match = BEARER.exec(req.get('authorization') ?? '');
	if (!match) throw problems.missingApiKey();
	const caller = await authenticate(match[1]);
	if (!hasApiAccess(caller.organization.plan)) throw problems.planRequired();
	res.locals.caller = caller;
	// GitHub's convention: tell integrators what their key holds, to make 403s self-explaining.
	res.setHeader('X-OAuth-Scopes', caller.apiKey.scopeList.join(', '));
	checkScope(res, scope);
}

/** The scope check alone, on a caller already authenticated (SCIM authenticates before its limit). */
export function checkScope(res: Response, scope: Scope | 'by-handler' | 'any-key'): void {
	if (scope === 'by-handler' || scope === 'any-key') return;
	res.setHeader('X-Accepted-OAuth-Scopes', scope);
	if (!callerOf(res).apiKey.scopeList.includes(scope)) throw problems.insufficientScope(scope);
}
