import { Option, type Command } from 'commander';

import { findOrganization } from '../organizations/service';
import { changeUser, type UserChange } from '../users/change';
import { ROLES, USER_STATUSES, type Role, type User, type UserStatus } from '../users/model';
import { rosterOf } from '../users/roster';
import { serializeUser } from '../users/serialize';
import { createUser, needsPassword, normaliseRole } from '../users/service';
import { withDatabase } from './context';
import { limitOption } from './option-values';
import { CliError, printJson, printLines, printList, UsageError } from './output';
import { readPassword } from './password-input';
import { registerPasswordCommands } from './passwords';

/** What `--json` prints for a user: the API's record, plus what only the operator sees. */
function userJson(user: User, organization: string) {
	return { ...serializeUser(user), organization, can_sign_in: user.passwordHash !== null };
}

export function registerUsers(program: Command): void {
	const users = program.command('users').description('list, create, update, deactivate and reactivate users (the same rules and events as the API); set a password or print a reset link');

	users
		.command('list')
		.description("list an organization's users, newest first")
		.requiredOption('--org <slug>', 'organization slug')
		.addOption(new Option('--role <role>', 'only this role').choices(ROLES))
		.addOption(new Option('--status <status>', 'only this status').choices(USER_STATUSES))
		.option('--limit <n>', 'at most this many (1–10000)', limitOption, 100)
		.option('--json', 'print them as a JSON array')
		.action((opts: { org: string; role?: Role; status?: UserStatus; limit: number; json?: boolean }) =>
			withDatabase(async () => {
				const organization = await findOrganization(opts.org);
				const { users: found, total } = await rosterOf(organization.id, { role: opts.role, status: opts.status, limit: opts.limit });
				printList(found, {
					json: opts.json,
					toJson: (user) => userJson(user, organization.slug),
					none: `No users in ${organization.slug} match.`,
					headers: ['ID', 'NAME', 'EMAIL', 'ROLE', 'STATUS', 'EXTERNAL ID'],
					row: (u) => [u.id, u.name, u.email, u.role, u.status, u.externalId ?? ''],
				});
				if (!opts.json && found.length > 0 && total > found.length) printLines(`(${found.length} of ${total}: --limit shows more)`);
			}),
		);

	users
		.command('create')
		.description('create a user; the password comes from LMS_PASSWORD or stdin, never from the command line')
		.requiredOption('--org <slug>', 'organization slug')
		.requiredOption('--email <email>', 'e-mail address, also the sign-in name')
		.requiredOption('--name <name>', 'display name')
		.requiredOption('--role <role>', 'student, instructor, admin or super_admin')
		.option('--external-id <id>', 'the HR system’s or identity provider’s id for the person (unique in the organization)')
		.option('--json', 'print the user as JSON')
		.action((opts: { org: string; email: string; name: string; role: string; externalId?: string; json?: boolean }) =>
			withDatabase(async () => {
				const organization = await findOrganization(opts.org);
				const role = normaliseRole(opts.role);
				const password = await readPassword();
				if (password === undefined && needsPassword(role)) {
					throw new CliError(
						`the ${role} role signs in to the settings pages and needs a password: set LMS_PASSWORD or pipe it on stdin.`,
					);
				}
				const user = await createUser({ organization, email: opts.email, name: opts.name, role, externalId: opts.externalId, password });
				if (opts.json) return printJson(userJson(user, organization.slug));
				const signIn = user.passwordHash === null ? 'without a password (cannot sign in)' : 'with a password';
				printLines(`Created ${user.role} ${user.email} (${user.id}) in ${organization.slug}, ${signIn}.`);
			}),
		);

	users
		.command('update')
		.description('change a user’s name, e-mail, role (student or instructor) or external id; emits user.updated')
		.argument('<id>', 'user id (usr_…)')
		.option('--name <name>', 'display name')
		.option('--email <email>', 'e-mail address')
		.option('--role <role>', 'student or instructor (admins are made with users create)')
		.option('--external-id <id>', 'the HR system’s or identity provider’s id for the person')
		.option('--clear-external-id', 'remove the external id')
		.option('--json', 'print the user as JSON')
		.action((id: string, opts: { name?: string; email?: string; role?: string; externalId?: string; clearExternalId?: boolean; json?: boolean }) => {
			if (opts.externalId !== undefined && opts.clearExternalId) throw new UsageError('give --external-id or --clear-external-id, not both.');
			const change: UserChange = { name: opts.name, email: opts.email, role: opts.role, externalId: opts.clearExternalId ? null : opts.externalId };
			if (Object.values(change).every((v) => v === undefined)) {
				throw new UsageError('nothing to change: give --name, --email, --role, --external-id or --clear-external-id.');
			}
			return run(id, change, opts.json, (user) => `Updated ${user.role} ${user.email} (${user.id}).`);
		});

	const setStatus = (name: string, status: UserStatus, description: string) =>
		users
			.command(name)
			.description(description)
			.argument('<id>', 'user id (usr_…)')
			.option('--json', 'print the user (and, for deactivate, the enrollments withdrawn) as JSON')
			.action((id: string, opts: { json?: boolean }) =>
				run(id, { status }, opts.json, (user, withdrawn) =>
					status === 'deactivated'
						? `Deactivated ${user.email} (${user.id}): ${withdrawn.length === 0 ? 'no active enrollment to withdraw' : `withdrew ${withdrawn.join(', ')}`}; their sessions ended.`
						: `Reactivated ${user.email} (${user.id}); withdrawn enrollments stay withdrawn.`,
				),
			);
	setStatus(
		'deactivate',
		'deactivated',
		'offboard a user in one step: withdraw every active enrollment, end their sessions and sign-in, refuse new enrollments; certificates stay',
	);
	setStatus('reactivate', 'active', 'reactivate a deactivated user (their withdrawn enrollments stay withdrawn)');
	registerPasswordCommands(users);
}

/**
 * One change through the domain's changeUser, as the operator: any user of any organization, by
 * id (the API's protected_user rule is for keys; the operator manages admins too).
 */
function run(id: string, change: UserChange, json: boolean | undefined, sentence: (user: User, withdrawn: string[]) => string): Promise<void> {
	return withDatabase(async () => {
		const { user, withdrawn } = await changeUser(undefined, id, change, 'operator');
		const withdrawnIds = withdrawn.map((e) => e.id);
		if (json) {
			return printJson(change.status === 'deactivated' ? { ...serializeUser(user), withdrawn_enrollments: withdrawnIds } : serializeUser(user));
		}
		printLines(sentence(user, withdrawnIds));
	});
}
