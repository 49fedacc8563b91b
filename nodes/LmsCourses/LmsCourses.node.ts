import type { INodeTypeBaseDescription, IVersionedNodeType } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { LmsCoursesV1 } from './v1/LmsCoursesV1';
import { LmsCoursesV2 } from './v2/LmsCoursesV2';

/**
 * n8n's versioned node: a workflow saved with version 1 keeps version 1's parameters and
 * behaviour (v1/ is the node as it was, unchanged); new nodes are version 2 (record pickers).
 * The type name `lmsCourses` never changes.
 */
export class LmsCourses extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'LMS Courses',
			name: 'lmsCourses',
			icon: { light: 'file:../../icons/lmsCourses.svg', dark: 'file:../../icons/lmsCourses.dark.svg' },
			group: ['transform'],
			description:
				'Read the published courses of your LMS organization: list or search them by title, get one, or get the completion report. Needs a key with read:courses (and read:enrollments for the report)',
			defaultVersion: 2,
			usableAsTool: true,
		};
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new LmsCoursesV1(baseDescription),
			2: new LmsCoursesV2(baseDescription),
		};
		super(nodeVersions, baseDescription);
	}
}
