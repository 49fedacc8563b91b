import { Option, type Command } from 'commander';

import { createAssignment } from '../assignments/assign';
import { deleteAssignment } from '../assignments/end';
import { ON_REMOVAL, type OnRemoval } from '../assignments/queries';
import { assignmentsOf } from '../assignments/read';
import { serializeAssignment } from '../assignments/serialize';
import { addMembers, removeMembers } from '../groups/members';
import { findGroup, groupsOf } from '../groups/read';
import { serializeGroup } from '../groups/serialize';
import { createGroup } from '../groups/write';
import { findOrganization } from '../organizations/service';
import { withDatabase } from './context';
import { limitOption } from './option-values';
import { CliError, printJson, printLines, printList, UsageError } from './output';

/** The group a command names by id or by name, in the organization. */
async function groupNamed(organizationId: string, slug: string, idOrName: string) {
	const group = await findGroup(organizationId, idOrName);
	if (!group) throw new CliError(`no group "${idOrName}" in ${slug}: list them with \`lms-server groups list --org ${slug}\`.`);
	return group;
}

/** User ids as arguments, each once; split on commas and spaces too, so a pasted list works. */
const idsOf = (args: string[]): string[] => [...new Set(args.flatMap((a) => a.split(/[\s,]+/)).filter(Boolean))];

/** `groups …` and `assignments …`: the same domain operations, rules and events as the API (SPEC §20). */
export function registerGroups(program: Command): void {
	const groups = program.command('groups').description("list and create groups, add and remove members (their assignments apply as through the API)");

	groups
		.command('list')
		.description("list an organization's groups by name")
		.requiredOption('--org <slug>', 'organization slug')
		.option('--limit <n>', 'at most this many (1–10000)', limitOption, 100)
		.option('--json', 'print them as a JSON array')
		.action((opts: { org: string; limit: number; json?: boolean }) =>
			withDatabase(async () => {
				const organization = await findOrganization(opts.org);
				const found = await groupsOf(organization.id, opts.limit);
				printList(found, {
					json: opts.json,
					toJson: serializeGroup,
					none: `No groups in ${organization.slug}.`,
					headers: ['ID', 'NAME', 'MEMBERS', 'EXTERNAL ID'],
					row: (g) => [g.id, g.name, String(g.memberCount), g.externalId ?? ''],
				});
			}),
		);

	groups
		.command('create')
		.description('create a group (emits group.created)')
		.requiredOption('--org <slug>', 'organization slug')
		.requiredOption('--name <name>', 'unique in the organization, in any case')
		.option('--description <text>', 'up to 1,000 characters')
		.option('--external-id <id>', "the identity provider's id for the group (unique in the organization)")
		.option('--json', 'print the group as JSON')
		.action((opts: { org: string; name: string; description?: string; externalId?: string; json?: boolean }) =>
			withDatabase(async () => {
				const organization = await findOrganization(opts.org);
				const group = await createGroup(organization.id, { name: opts.name.trim(), description: opts.description ?? null, externalId: opts.externalId ?? null });
				if (opts.json) return printJson(serializeGroup(group));
				printLines(`Created group ${group.name} (${group.id}) in ${organization.slug}.`);
			}),
		);

	const change = (name: string, description: string, apply: typeof addMembers | typeof removeMembers) =>
		groups
			.command(name)
			.description(description)
			.requiredOption('--org <slug>', 'organization slug')
			.argument('<group>', 'group id (grp_…) or name')
			.argument('<user-ids...>', 'user ids (usr_…), up to 1,000')
			.option('--json', 'print what changed as JSON')
			.action((groupName: string, userIds: string[], opts: { org: string; json?: boolean }) =>
				withDatabase(async () => {
					const organization = await findOrganization(opts.org);
					const group = await groupNamed(organization.id, organization.slug, groupName);
					const result = await apply(organization.id, group.id, idsOf(userIds));
					if (opts.json) return printJson(result);
					const [done, unchanged] = Object.values(result) as [string[], string[]];
					printLines(`${group.name} (${group.id}): ${Object.keys(result)[0]} ${done.length}${done.length > 0 ? ` (${done.join(', ')})` : ''}, unchanged ${unchanged.length}.`);
				}),
			);
	change('add-members', "add users to a group: emits group.member_added, and the group's assignments enroll new student members at once", addMembers);
	change('remove-members', "remove users from a group: emits group.member_removed; assignments with on_removal withdraw withdraw what they made", removeMembers);

	const assignments = program.command('assignments').description('assign courses to groups: members are enrolled in the background, and as they join');

	assignments
		.command('list')
		.description("list an organization's assignments, oldest first")
		.requiredOption('--org <slug>', 'organization slug')
		.option('--group <group>', 'only this group (id or name)')
		.option('--limit <n>', 'at most this many (1–10000)', limitOption, 100)
		.option('--json', 'print them as a JSON array')
		.action((opts: { org: string; group?: string; limit: number; json?: boolean }) =>
			withDatabase(async () => {
				const organization = await findOrganization(opts.org);
				const group = opts.group === undefined ? undefined : await groupNamed(organization.id, organization.slug, opts.group);
				const found = await assignmentsOf(organization.id, group?.id, opts.limit);
				printList(found, {
					json: opts.json,
					toJson: serializeAssignment,
					none: `No assignments in ${organization.slug}${group ? ` for ${group.name}` : ''}.`,
					headers: ['ID', 'GROUP', 'COURSE', 'DUE IN DAYS', 'ON REMOVAL', 'APPLIED AT'],
					row: (a) => [a.id, a.groupId, a.courseId, a.dueInDays === null ? '' : String(a.dueInDays), a.onRemoval, serializeAssignment(a).applied_at ?? 'applying'],
				});
			}),
		);

	assignments
		.command('create')
		.description("assign a published course to a group; a running server enrolls its active student members in the background")
		.requiredOption('--org <slug>', 'organization slug')
		.requiredOption('--group <group>', 'group id (grp_…) or name')
		.requiredOption('--course <id>', 'published course id (crs_…)')
		.option('--due-in-days <n>', 'each enrollment is due this many days after the assignment (1–3650)')
		.addOption(new Option('--on-removal <what>', 'what a member who leaves keeps').choices(ON_REMOVAL).default('keep'))
		.option('--json', 'print the assignment as JSON')
		.action((opts: { org: string; group: string; course: string; dueInDays?: string; onRemoval: OnRemoval; json?: boolean }) =>
			withDatabase(async () => {
				const dueInDays = opts.dueInDays === undefined ? null : Number(opts.dueInDays);
				if (dueInDays !== null && !/^\d+$/.test(opts.dueInDays!)) throw new UsageError(`--due-in-days must be a whole number from 1 to 3650, not "${opts.dueInDays}".`);
				const organization = await findOrganization(opts.org);
				const group = await groupNamed(organization.id, organization.slug, opts.group);
				const assignment = await createAssignment(organization.id, { groupId: group.id, courseId: opts.course, dueInDays, onRemoval: opts.onRemoval });
				if (opts.json) return printJson(serializeAssignment(assignment));
				printLines(`Assigned ${assignment.courseId} to ${group.name} (${assignment.id}); a running server enrolls its students in the background.`);
			}),
		);

	assignments
		.command('delete')
		.description('end an assignment: it enrolls no one more; the enrollments it made stay')
		.requiredOption('--org <slug>', 'organization slug')
		.argument('<id>', 'assignment id (asg_…)')
		.option('--json', 'print the outcome as JSON')
		.action((id: string, opts: { org: string; json?: boolean }) =>
			withDatabase(async () => {
				const organization = await findOrganization(opts.org);
				if (!(await deleteAssignment(organization.id, id))) throw new CliError(`no assignment ${id} in ${organization.slug}: list them with \`lms-server assignments list --org ${organization.slug}\`.`);
				if (opts.json) return printJson({ id, deleted: true });
				printLines(`Ended assignment ${id}; the enrollments it made stay.`);
			}),
		);
}
