import type { INodeTypeBaseDescription, IVersionedNodeType } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { LmsEnrollmentsV1 } from './v1/LmsEnrollmentsV1';
import { LmsEnrollmentsV2 } from './v2/LmsEnrollmentsV2';

/**
 * n8n's versioned node: a workflow saved with version 1 keeps version 1's parameters and
 * behaviour (v1/ is the node as it was, unchanged); version 2 has the record pickers; 2.1 (light
 * versioning, same class) adds the due date to Create and Update; 2.2 reads a Due Date given as a
 * date alone as the end of that day in the workflow's time zone (2.1: its midnight, kept for the
 * workflows saved with it). New nodes are 2.2.
 * The type name `lmsEnrollments` never changes.
 */
export class LmsEnrollments extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'LMS Enrollments',
			name: 'lmsEnrollments',
			icon: { light: 'file:../../icons/lmsEnrollments.svg', dark: 'file:../../icons/lmsEnrollments.dark.svg', },
			group: ['transform'],
			description:
				'Enroll students in courses, record progress and completion, withdraw or reactivate, and read enrollments. Needs a key with read:enrollments (and write:enrollments to create or update)',
			defaultVersion: 2.2,
			usableAsTool: true,
		};
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new LmsEnrollmentsV1(baseDescription),
			2: new LmsEnrollmentsV2(baseDescription),
			2.1: new LmsEnrollmentsV2(baseDescription),
			2.2: new LmsEnrollmentsV2(baseDescription),
		};
		super(nodeVersions, baseDescription);
	}
}
