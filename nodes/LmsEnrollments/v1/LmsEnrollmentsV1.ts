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
 * Programmatic for the shared transport's 429 loop and error mapping, and because Create may
 * need a second, dependent call (reading the existing enrollment after a 409).
 */
export class LmsEnrollmentsV1 implements INodeType {
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
			subtitle:
				'={{ { create: "Enroll a student in a course", get: "Get an enrollment", getAll: "Get many enrollments" }[$parameter["operation"]] }}',
			description:
				'Enroll students in courses and read enrollments (status and progress) in your LMS organization',
			defaults: { name: 'LMS Enrollments' },
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
