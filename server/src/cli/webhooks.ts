import type { Command } from 'commander';

import { RuleError } from '../common/rule-error';
import { findOrganization } from '../organizations/service';
import { serializeEndpoint } from '../webhooks/serialize';
import { deleteEndpoint, listEndpoints } from '../webhooks/service';
import { withDatabase } from './context';
import { printLines, printList } from './output';

/** The operator's view of Settings → Webhooks: list an organization's endpoints, delete one. */
export function registerWebhooks(program: Command): void {
	const webhooks = program.command('webhooks').description('list and delete webhook endpoints (create them, rotate secrets and resend deliveries on Settings → Webhooks or through the API)');

	webhooks
		.command('list')
		.description('list the webhook endpoints of an organization (never their secrets)')
		.requiredOption('--org <slug>', 'organization slug')
		.option('--json', 'print the endpoints as a JSON array')
		.action((opts: { org: string; json?: boolean }) =>
			withDatabase(async () => {
				const organization = await findOrganization(opts.org);
				printList(await listEndpoints(organization.id), {
					json: opts.json,
					toJson: serializeEndpoint,
					none: `${organization.slug} has no webhook endpoints.`,
					headers: ['ID', 'URL', 'EVENTS', 'STATUS', 'CREATED'],
					row: (e) => [e.id, e.url, e.eventList.join(','), e.status, e.createdAt.toISOString()],
				});
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
