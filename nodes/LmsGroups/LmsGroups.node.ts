import type { INodeTypeBaseDescription, IVersionedNodeType } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { LmsGroupsV1 } from './v1/LmsGroupsV1';

/**
 * n8n's versioned node, as the other LMS action nodes are, so that a change of parameters can
 * become version 2 while saved workflows keep version 1. The type name `lmsGroups` never changes.
 */
export class LmsGroups extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'LMS Groups',
			name: 'lmsGroups',
			icon: { light: 'file:../../icons/lmsGroups.svg', dark: 'file:../../icons/lmsGroups.dark.svg' },
			group: ['transform'],
			description:
				'Groups of people in your LMS (a department, a site, a role): create, list, change and delete them, add and remove members, and assign a course to everyone in a group. Needs a key with read:users (write:users to change groups and members; read:enrollments and write:enrollments to assign courses)',
			defaultVersion: 1,
			usableAsTool: true,
		};
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new LmsGroupsV1(baseDescription),
		};
		super(nodeVersions, baseDescription);
	}
}
