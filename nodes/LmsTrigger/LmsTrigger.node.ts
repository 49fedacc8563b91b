import type { INodeTypeBaseDescription, IVersionedNodeType } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { LmsTriggerV1 } from './v1/LmsTriggerV1';
import { LMS_TRIGGER_DESCRIPTION, LmsTriggerV2 } from './v2/LmsTriggerV2';

/**
 * n8n's versioned node: a workflow saved with version 1 keeps version 1's parameters and
 * behaviour (v1/ is the trigger as it was, unchanged: it polls the record lists); new nodes are
 * version 2 (v2/: the event feed, more events, Certificate Expiring). The type name
 * `lmsTrigger` never changes.
 */
export class LmsTrigger extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'LMS Trigger',
			name: 'lmsTrigger',
			icon: { light: 'file:../../icons/lmsTrigger.svg', dark: 'file:../../icons/lmsTrigger.dark.svg' },
			group: ['trigger'],
			description: LMS_TRIGGER_DESCRIPTION,
			defaultVersion: 2,
		};
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new LmsTriggerV1(baseDescription),
			2: new LmsTriggerV2(baseDescription),
		};
		super(nodeVersions, baseDescription);
	}
}
