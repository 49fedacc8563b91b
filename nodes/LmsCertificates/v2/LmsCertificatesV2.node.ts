import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { executeLmsOperation } from '../../shared/execute';
import { lmsListSearch } from '../../shared/list-search';
import { description, operations } from './actions';

/** Version 2: records are picked with resource locators (From List, By ID, By Email). */
// The icon comes with baseDescription from LmsCertificates.node.ts, where n8n resolves it; the rule looks for a literal one.
// eslint-disable-next-line @n8n/community-nodes/icon-validation
export class LmsCertificatesV2 implements INodeType {
	description: INodeTypeDescription;

	methods = { listSearch: lmsListSearch };

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			...baseDescription,
			version: 2,
			subtitle: '={{ $parameter["operation"] === "get" ? "Get a certificate" : "Get many certificates" }}',
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
