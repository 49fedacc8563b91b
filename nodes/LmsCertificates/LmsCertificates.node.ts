import type { INodeTypeBaseDescription, IVersionedNodeType } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { LmsCertificatesV1 } from './v1/LmsCertificatesV1';
import { LmsCertificatesV2 } from './v2/LmsCertificatesV2';

/**
 * n8n's versioned node: a workflow saved with version 1 keeps version 1's parameters and
 * behaviour (v1/ is the node as it was, unchanged); new nodes are version 2 (record pickers).
 * The type name `lmsCertificates` never changes.
 */
export class LmsCertificates extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'LMS Certificates',
			name: 'lmsCertificates',
			icon: { light: 'file:../../icons/lmsCertificates.svg', dark: 'file:../../icons/lmsCertificates.dark.svg', },
			group: ['transform'],
			description:
				'Read the certificates students earned in your LMS organization, by student, course or expiry date. Needs a key with read:enrollments',
			defaultVersion: 2,
			usableAsTool: true,
		};
		const nodeVersions: IVersionedNodeType['nodeVersions'] = {
			1: new LmsCertificatesV1(baseDescription),
			2: new LmsCertificatesV2(baseDescription),
		};
		super(nodeVersions, baseDescription);
	}
}
