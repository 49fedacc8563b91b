import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { executeLmsOperation } from '../../shared/execute';
import { description, operations } from './actions';

/** Programmatic for the same reason as LMS Users: the shared transport's 429 loop and error mapping. */
export class LmsCertificatesV1 implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'LMS Certificates',
		name: 'lmsCertificates',
		// The icon resolves from the versioned node's own file (n8n-core's directory loader fixes every
		// version's icon path against LmsCertificates.node.js), which the lint rule does not know.
		/* eslint-disable @n8n/community-nodes/icon-validation */
		icon: {
			light: 'file:../../icons/lmsCertificates.svg',
			dark: 'file:../../icons/lmsCertificates.dark.svg',
		},
		/* eslint-enable @n8n/community-nodes/icon-validation */
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] === "get" ? "Get a certificate" : "Get many certificates" }}',
		description:
			'Read the certificates students earned in your LMS organization: list them by student or course, or get one by ID',
		defaults: { name: 'LMS Certificates' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'lmsApi', required: true }],
		properties: description,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeLmsOperation.call(this, operations);
	}
}
