import type { Command } from 'commander';

import { loadConfig, type Config } from '../config';
import { findOrganization } from '../organizations/service';
import { RESET_LINK_MINUTES, RESET_PATH, createResetLink } from '../users/reset-links';
import { findAccount, setPassword } from '../users/set-password';
import { withDatabase } from './context';
import { CliError, printJson, printLines } from './output';
import { readNewPassword } from './password-input';

const OPERATOR = { actor: { kind: 'cli' } as const, origin: {} };

/** Where a person's browser reaches the server: the address it listens on (all interfaces: localhost). */
function pagesOrigin(config: Config): string {
	if (config.publicUrl) return config.publicUrl;
	const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
	return `http://${host}:${config.port}`;
}

async function account(opts: { email: string; org?: string }) {
	const organizationId = opts.org === undefined ? undefined : (await findOrganization(opts.org)).id;
	return findAccount(opts.email, organizationId);
}

/** `users set-password` and `users reset-link` (SPEC §22): the operator's two ways back into an account. */
export function registerPasswordCommands(users: Command): void {
	users
		.command('set-password')
		.description('set an admin’s or super admin’s password: asked twice at a terminal, or piped on stdin (or LMS_PASSWORD), never an argument; ends their sessions')
		.requiredOption('--email <email>', 'the account’s e-mail (its sign-in name)')
		.option('--org <slug>', 'organization slug, if the e-mail is an account in several')
		.action((opts: { email: string; org?: string }) =>
			withDatabase(async () => {
				const user = await account(opts);
				const password = await readNewPassword(() => new CliError('the two passwords differ: nothing was changed.'));
				if (password === undefined) throw new CliError('no password given: type it at the prompt, pipe it on stdin or set LMS_PASSWORD.');
				await setPassword(user, password, { action: 'password.set', ...OPERATOR });
				printLines(`Password set for ${user.email} (${user.id}); their sessions ended.`);
			}),
		);

	users
		.command('reset-link')
		.description(`print a one-time link with which an admin or super admin chooses a new password (valid ${RESET_LINK_MINUTES} minutes, one use)`)
		.requiredOption('--email <email>', 'the account’s e-mail (its sign-in name)')
		.option('--org <slug>', 'organization slug, if the e-mail is an account in several')
		.option('--json', 'print the link and its expiry as JSON')
		.action((opts: { email: string; org?: string; json?: boolean }) => {
			const config = loadConfig();
			return withDatabase(
				async () => {
					const user = await account(opts);
					const { token, expiresAt } = await createResetLink(user, OPERATOR.actor, OPERATOR.origin);
					const url = `${pagesOrigin(config)}${RESET_PATH}/${token}`;
					if (opts.json) return printJson({ user_id: user.id, email: user.email, url, expires_at: expiresAt.toISOString() });
					printLines(
						`Reset link for ${user.email}, valid until ${expiresAt.toISOString()} (one use):`,
						url,
						'Hand it to them privately: whoever opens it can set the password.',
					);
				},
				{ config },
			);
		});
}
