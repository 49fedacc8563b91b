import { join } from 'node:path';
import nunjucks from 'nunjucks';
import type { Request, Response } from 'express';

import { saveSession } from './session';

/** Templates and assets sit next to the compiled code (the build copies them into dist/). */
const VIEWS_DIR = join(__dirname, 'views');
export const ASSETS_DIR = join(__dirname, 'assets');
export const ASSETS_PATH = '/settings/assets';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "3 Mar 2025, 14:05 UTC": unambiguous for every reader, whatever their locale. */
function formatDate(value: Date | string | null | undefined): string {
	if (!value) return '';
	const d = new Date(value);
	const pad = (n: number) => String(n).padStart(2, '0');
	return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

function isoDate(value: Date | string | null | undefined): string {
	return value ? new Date(value).toISOString() : '';
}

/**
 * Nunjucks with autoescape on: every `{{ value }}` is HTML-escaped, so a label such as
 * `<script>` is shown as text. Nothing in the templates uses `| safe`.
 */
export function createViews() {
	const env = new nunjucks.Environment(new nunjucks.FileSystemLoader(VIEWS_DIR), {
		autoescape: true,
		throwOnUndefined: false,
		trimBlocks: true,
		lstripBlocks: true,
	});
	env.addFilter('date', formatDate);
	env.addFilter('isodate', isoDate);
	env.addGlobal('assets', ASSETS_PATH);
	env.addGlobal('roleNames', { student: 'Student', instructor: 'Instructor', admin: 'Admin', super_admin: 'Super Admin' });
	env.addGlobal('planNames', { enterprise: 'Enterprise', business: 'Business', starter: 'Starter' });
	env.addGlobal('statusNames', { active: 'Active', rotated: 'Rotated', revoked: 'Revoked' });
	env.addGlobal('scopeHelp', {
		'read:users': 'List and retrieve users',
		'read:courses': 'List and retrieve published courses',
		'read:enrollments': 'List and retrieve enrollments and certificates',
		'write:enrollments': 'Enroll students in courses',
		'manage:webhooks': 'Create and delete webhook endpoints (n8n subscribes itself)',
		'write:users': 'Create, update, deactivate and reactivate students and instructors (HR and identity-provider sync)',
	});

	return {
		/**
		 * Renders a page; every page gets the CSRF token for its forms and the signed-in person.
		 * If rendering used up something in the session (a notice, a refused form), the session is saved before
		 * the page goes out, so no later request can see it again.
		 */
		async render(req: Request, res: Response, view: string, context: Record<string, unknown> = {}, status = 200): Promise<void> {
			const notice = req.session?.notice;
			if (notice) delete req.session.notice;
			// A refused form is shown by its own page only (session.ts backToForm).
			const refused = req.session?.refused?.path === req.originalUrl.split('?')[0] ? req.session.refused : undefined;
			if (refused) delete req.session.refused;
			const html = env.render(view, {
				viewer: res.locals.viewer,
				// Called by the templates that have a form, so a page without one creates no session.
				csrfToken: () => (req.session && req.csrfToken ? req.csrfToken() : ''),
				notice,
				refused,
				...context,
			});
			if (notice || refused) await saveSession(req);
			res.status(status).type('html').send(html);
		},
	};
}

export type Views = ReturnType<typeof createViews>;
