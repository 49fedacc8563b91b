import type { Command } from 'commander';

import { RuleError } from '../common/rule-error';
import { findOrganization } from '../organizations/service';
import { serializeEndpoint } from '../webhooks/serialize';
import { deleteEndpoint, listEndpoints } from '../webhooks/service';
import { withDatabase } from './context';
import { printJson, printLines, printTable } from './output';

/** The operator's view of Settings → Webhooks: list an organization's endpoints, delete one. */
export function registerWebhooks(program: Command): void {
	const webhooks = program.command('webhooks').description('webhook endpoints (same as Settings → Webhooks)');

	webhooks
		.command('list')
		.description('list the webhook endpoints of an organization (never their secrets)')
		.requiredOption('--org <slug>', 'organization slug')
		.option('--json', 'print the endpoints as a JSON array')
		.action((opts: { org: string; json?: boolean }) =>
			withDatabase(async () => {
				const organization = await findOrganization(opts.org);
				const endpoints = await listEndpoints(organization.id);
				if (opts.json) return printJson(endpoints.map(serializeEndpoint));
				if (endpoints.length === 0) return printLines(`${organization.slug} has no webhook endpoints.`);
				printTable(
					['ID', 'URL', 'EVENTS', 'STATUS', 'CREATED'],
					endpoints.map((e) => [e.id, e.url, e.eventList.join(','), e.status, e.createdAt.toISOString()]),
				);
			}),
		);

	webhooks
		.command('delete')
		.description('delete an endpoint: nothing more is sent to it (audited, actor cli)')
		.argument('<id>', 'endpoint id (whe_…)')
		.action((id: string) =>
			withDatabase(async () => {
				const endpoint = await deleteEndpoint({ organizationId: undefined, id, actor: { kind: 'cli' } });
				if (!endpoint) throw new RuleError('endpoint_not_found', `No webhook endpoint ${id}.`);
				printLines(`Deleted webhook endpoint ${endpoint.id} (${endpoint.url}): nothing more is sent to it.`);
			}),
		);
}
