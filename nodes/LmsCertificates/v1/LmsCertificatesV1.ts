import type { INodeTypeBaseDescription } from 'n8n-workflow';

import { LmsActionNodeV1 } from '../../shared/action-node-v1';
import { description, operations } from './actions';

/** Version 1 of LMS Certificates as it was published (LmsActionNodeV1): ids typed in. */
export class LmsCertificatesV1 extends LmsActionNodeV1 {
	constructor(baseDescription: INodeTypeBaseDescription) {
		super(baseDescription, {
			subtitle: '={{ $parameter["operation"] === "get" ? "Get a certificate" : "Get many certificates" }}',
			description:
				'Read the certificates students earned in your LMS organization: list them by student or course, or get one by ID',
			properties: description,
			operations,
		});
	}
}
