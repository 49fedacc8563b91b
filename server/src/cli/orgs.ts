import type { Command } from 'commander';

import type { Organization } from '../organizations/model';
import { hasApiAccess } from '../organizations/plan';
import { changePlan, createOrganization, listOrganizations } from '../organizations/service';
import { withDatabase } from './context';
import { printJson, printLines, printList } from './output';

const organizationJson = (o: Organization) => ({
	id: o.id,
	name: o.name,
	slug: o.slug,
	plan: o.plan,
	created_at: o.createdAt.toISOString(),
});

export function registerOrgs(program: Command): void {
	const orgs = program.command('orgs').description('manage organizations');

	orgs
		.command('list')
		.description('list the organizations, oldest first')
		.option('--json', 'print them as a JSON array')
		.action((opts: { json?: boolean }) =>
			withDatabase(async () => {
				printList(await listOrganizations(), {
					json: opts.json,
					toJson: organizationJson,
					none: 'No organizations yet: create one with `lms-server orgs create` or `lms-server seed --demo`.',
					headers: ['SLUG', 'ID', 'PLAN', 'NAME'],
					row: (o) => [o.slug, o.id, o.plan, o.name],
				});
			}),
		);

	orgs
		.command('create')
		.description('create an organization')
		.requiredOption('--name <name>', 'display name')
		.requiredOption('--slug <slug>', 'short unique name: lower-case letters, digits, hyphens')
		.requiredOption('--plan <plan>', 'enterprise, business or starter')
		.option('--json', 'print the organization as JSON')
		.action((opts: { name: string; slug: string; plan: string; json?: boolean }) =>
			withDatabase(async () => {
				const organization = await createOrganization(opts);
				if (opts.json) return printJson(organizationJson(organization));
				printLines(`Created organization ${organization.slug} (${organization.id}) on the ${organization.plan} plan.`);
			}),
		);

	orgs
		.command('update')
		.description("change an organization's plan; its API keys follow on the next request")
		.argument('<slug>', 'organization slug')
		.requiredOption('--plan <plan>', 'enterprise, business or starter')
		.option('--json', 'print the organization as JSON')
		.action((slug: string, opts: { plan: string; json?: boolean }) =>
			withDatabase(async () => {
				const organization = await changePlan(slug, opts.plan);
				if (opts.json) return printJson(organizationJson(organization));
				const note =
					hasApiAccess(organization.plan)
						? 'Its active API keys work again.'
						: 'Its API keys now answer 403 plan_required until it returns to enterprise.';
				printLines(`${organization.slug} is now on the ${organization.plan} plan. ${note}`);
			}),
		);
}
