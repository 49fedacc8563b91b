import type { Command } from 'commander';

import { findOrganization } from '../organizations/service';
import { createUser, needsPassword, normaliseRole } from '../users/service';
import { withDatabase } from './context';
import { CliError, printJson, printLines } from './output';
import { readPassword } from './password-input';

export function registerUsers(program: Command): void {
	const users = program.command('users').description('manage users');

	users
		.command('create')
		.description('create a user; the password comes from LMS_PASSWORD or stdin, never from the command line')
		.requiredOption('--org <slug>', 'organization slug')
		.requiredOption('--email <email>', 'e-mail address, also the sign-in name')
		.requiredOption('--name <name>', 'display name')
		.requiredOption('--role <role>', 'student, instructor, admin or super_admin')
		.option('--json', 'print the user as JSON')
		.action((opts: { org: string; email: string; name: string; role: string; json?: boolean }) =>
			withDatabase(async () => {
				const organization = await findOrganization(opts.org);
				const role = normaliseRole(opts.role);
				const password = await readPassword();
				if (password === undefined && needsPassword(role)) {
					throw new CliError(
						`the ${role} role signs in to the settings pages and needs a password: set LMS_PASSWORD or pipe it on stdin.`,
					);
				}
				const user = await createUser({ organization, email: opts.email, name: opts.name, role, password });
				if (opts.json) {
					return printJson({
						id: user.id,
						name: user.name,
						email: user.email,
						role: user.role,
						organization: organization.slug,
						can_sign_in: user.passwordHash !== null,
						created_at: user.createdAt.toISOString(),
					});
				}
				const signIn = user.passwordHash === null ? 'without a password (cannot sign in)' : 'with a password';
				printLines(`Created ${user.role} ${user.email} (${user.id}) in ${organization.slug}, ${signIn}.`);
			}),
		);
}
