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

/**
 * Programmatic rather than declarative: every request must wait out the LMS's 429s (100
 * requests a minute per IP) and map its problem codes to actionable errors, which declarative
 * routing cannot do; the shared transport does both for all LMS nodes.
 */
export class LmsUsersV1 implements INodeType {
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
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeLmsOperation.call(this, operations);
	}
}
