import type { INodeProperties, INodeTypeBaseDescription, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { LMS_CREDENTIAL_TYPE, lmsApiBaseUrl } from './transport';
import type { LmsApiCredentials } from './types';

/**
 * What the polling trigger's versions share: their description's frame, what their stored
 * position belongs to, and how long a poll may run.
 */

/**
 * One version of LMS Trigger's description. Name and icon come from the versioned node's own
 * file: n8n resolves every version's icon against that file, and the type name is defined in one place.
 */
export function pollingTriggerDescription(
	{ displayName, name, icon }: INodeTypeBaseDescription,
	version: { version: number; subtitle: string; description: string; properties: INodeProperties[] },
): INodeTypeDescription {
	return {
		displayName,
		name,
		icon,
		group: ['trigger'],
		...version,
		defaults: { name: 'LMS Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'lmsApi', required: true }],
	};
}

/**
 * n8n 2.38+ tells a poll how long it may run (`getPollBudgetMs`, not in the typings of older
 * versions). Past it the engine abandons the poll, so the poller stops early and commits only
 * what it has fully read.
 */
export function pollDeadline(context: IPollFunctions): number | undefined {
	const host = context as unknown as { getPollBudgetMs?: () => unknown };
	if (typeof host.getPollBudgetMs !== 'function') return undefined;
	const budget = host.getPollBudgetMs();
	return typeof budget === 'number' && Number.isFinite(budget) && budget >= 0 ? Date.now() + budget : undefined;
}

/**
 * What a stored position belongs to: the event and its filter (their list), the LMS and the
 * credential. Never the key itself: static data is stored in clear in the workflow.
 */
export async function cursorScope(
	context: IPollFunctions,
	event: string,
	query: Record<string, string>,
): Promise<string> {
	const credentials = await context.getCredentials<LmsApiCredentials>(LMS_CREDENTIAL_TYPE);
	const credentialId = context.getNode().credentials?.[LMS_CREDENTIAL_TYPE]?.id ?? '';
	const filter = Object.keys(query)
		.sort()
		.map((name) => `${name}=${query[name]}`)
		.join('&');
	return `${event}?${filter} ${lmsApiBaseUrl(credentials.baseUrl) ?? ''} ${credentialId}`;
}
