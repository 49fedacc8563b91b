import type { INodeTypeBaseDescription, IVersionedNodeType } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { LmsUsersV1 } from './v1/LmsUsersV1';
import { LmsUsersV2 } from './v2/LmsUsersV2';

/**
 * n8n's versioned node: a workflow saved with version 1 keeps version 1's parameters and
 * behaviour (v1/ is the node as it was, unchanged); new nodes are version 2 (record pickers).
 * The type name `lmsUsers` never changes.
 */
export class LmsUsers extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'LMS Users',
			name: 'lmsUsers',
			icon: { light: 'file:../../icons/lmsUsers.svg', dark: 'file:../../icons/lmsUsers.dark.svg' },
			group: ['transform'],
			description:
				'The people of your LMS organization: list, search or get them; create, update, deactivate, reactivate, or create or update them from a roster. Needs a key with read:users, and write:users to change people',
			defaultVersion: 2.1,
			usableAsTool: true,
		};
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new LmsUsersV1(baseDescription),
			2: new LmsUsersV2(baseDescription),
			2.1: new LmsUsersV2(baseDescription),
		};
		super(nodeVersions, baseDescription);
	}
}
