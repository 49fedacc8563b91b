import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { executeLmsOperation } from '../../shared/execute';
import { description, operations } from './actions';

/** Programmatic for the same reason as LMS Users: the shared transport's 429 loop and error mapping. */
export class LmsCertificatesV1 implements INodeType {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			// Name and icon come from the versioned node's own file: n8n resolves every version's icon
			// against that file, and the type name is defined in one place.
			displayName: baseDescription.displayName,
			name: baseDescription.name,
			icon: baseDescription.icon,
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
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeLmsOperation.call(this, operations);
	}
}
