import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { executeLmsOperation } from '../../shared/execute';
import { description, operations } from './actions';

/**
 * Programmatic rather than declarative: every request must wait out the LMS's 429s (100
 * requests a minute per IP) and map its problem codes to actionable errors, which declarative
 * routing cannot do; the shared transport does both for all LMS nodes.
 */
export class LmsUsersV1 implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'LMS Users',
		name: 'lmsUsers',
		// The icon resolves from the versioned node's own file (n8n-core's directory loader fixes every
		// version's icon path against LmsUsers.node.js), which the lint rule does not know.
		// eslint-disable-next-line @n8n/community-nodes/icon-validation
		icon: { light: 'file:../../icons/lmsUsers.svg', dark: 'file:../../icons/lmsUsers.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] === "get" ? "Get a user" : "Get many users" }}',
		description:
			'Read the users of your LMS organization (students, instructors, admins): list them, find one by email or role, or get one by ID',
		defaults: { name: 'LMS Users' },
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
