import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { executeLmsOperation } from '../shared/execute';
import { description, operations } from './actions';

/** Programmatic for the same reason as LMS Users: the shared transport's 429 loop and error mapping. */
export class LmsCertificates implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'LMS Certificates',
		name: 'lmsCertificates',
		icon: {
			light: 'file:../../icons/lmsCertificates.svg',
			dark: 'file:../../icons/lmsCertificates.dark.svg',
		},
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
