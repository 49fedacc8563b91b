import type { INodeTypeBaseDescription, IVersionedNodeType } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { LmsTriggerV1 } from './v1/LmsTriggerV1.node';

/**
 * n8n's versioned node: a workflow saved with version 1 keeps version 1's parameters and
 * behaviour (v1/ is the trigger as it was, unchanged). The type name `lmsTrigger` never changes.
 */
export class LmsTrigger extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'LMS Trigger',
			name: 'lmsTrigger',
			icon: { light: 'file:../../icons/lmsTrigger.svg', dark: 'file:../../icons/lmsTrigger.dark.svg' },
			group: ['trigger'],
			description: 'Starts the workflow when a user, an enrollment or a certificate is created in your LMS',
			defaultVersion: 1,
		};
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new LmsTriggerV1(),
		};
		super(nodeVersions, baseDescription);
	}
}
