import type { NextFunction, Request, RequestHandler, Response } from 'express';

import type { Actor, Origin } from '../api-keys/audit';
import { originOf } from '../http/auth';
import { Organization } from '../organizations/model';
import { hasApiAccess } from '../organizations/plan';
import { User } from '../users/model';
import type { Views } from './views';

/** The signed-in person and their organization, read fresh on every request. */
export interface Viewer {
	user: User;
	organization: Organization;
	/** Only a Super Admin may see the API Keys page at all. */
	isSuperAdmin: boolean;
	/** The API, and so creating keys, is an Enterprise feature. */
	hasApi: boolean;
}

declare global {
	// eslint-disable-next-line @typescript-eslint/no-namespace
	namespace Express {
		interface Locals {
			viewer?: Viewer;
		}
	}
}

/**
 * Role, status and plan are read from the database on each request, not copied into the
 * session, so a demotion, a deactivation or a downgrade takes effect on the very next page.
 */
export const loadViewer: RequestHandler = async (req, res, next) => {
	const userId = req.session.userId;
	if (userId) {
		const user = await User.findByPk(userId);
		const organization = user ? await Organization.findByPk(user.organizationId) : null;
		// A deactivated user's session ends at their next request, whatever deleted it or not.
		if (user && organization && user.status === 'active') {
			res.locals.viewer = {
				user,
				organization,
				isSuperAdmin: user.role === 'super_admin',
				hasApi: hasApiAccess(organization.plan),
			};
		} else {
			delete req.session.userId;
		}
	}
	next();
};

/** A path inside the settings pages, safe to send the person back to after signing in. */
export function safeNext(value: unknown): string {
	return typeof value === 'string' && /^\/settings(\/[A-Za-z0-9_-]+)*$/.test(value) ? value : '/settings';
}

export function requireSignIn(req: Request, res: Response, next: NextFunction): void {
	if (res.locals.viewer) return next();
	const target = req.method === 'GET' ? safeNext(req.originalUrl.split('?')[0]) : '/settings';
	res.redirect(303, target === '/settings' ? '/login' : `/login?next=${encodeURIComponent(target)}`);
}

/**
 * Anyone but a Super Admin gets the same 404 as for a page that does not exist: the page's
 * existence is not theirs to learn.
 */
export function requireSuperAdmin(views: Views): RequestHandler {
	return (req, res, next) => {
		if (res.locals.viewer?.isSuperAdmin) return next();
		return views.render(req, res, 'not-found.njk', {}, 404);
	};
}

export function viewerOf(res: Response): Viewer {
	const viewer = res.locals.viewer;
	if (!viewer) throw new Error('viewerOf() used on a route without requireSignIn');
	return viewer;
}

/**
 * Who a settings page acts for, as the domain's audited operations take it: the viewer's
 * organization, the viewer named by e-mail (unique, and still meaningful if the user is renamed),
 * and where the request came from.
 */
export function asViewer(req: Request, res: Response): { organizationId: string; actor: Actor; origin: Origin } {
	const { user, organization } = viewerOf(res);
	return {
		organizationId: organization.id,
		actor: { kind: 'user', id: user.id, name: user.email },
		origin: originOf(req),
	};
}

/** A submitted form's field as text ('' when absent or not text). */
export function textField(req: Request, name: string): string {
	const value = (req.body as Record<string, unknown> | undefined)?.[name];
	return typeof value === 'string' ? value : '';
}

/** A field a form may send several times (checkboxes): its texts, in order. */
export function listField(req: Request, name: string): string[] {
	const value = (req.body as Record<string, unknown> | undefined)?.[name];
	return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
}
