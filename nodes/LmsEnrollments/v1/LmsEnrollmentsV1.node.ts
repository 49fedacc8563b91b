import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { executeLmsOperation } from '../../shared/execute';
import { description, operations } from './actions';

/**
 * Programmatic for the shared transport's 429 loop and error mapping, and because Create may
 * need a second, dependent call (reading the existing enrollment after a 409).
 */
export class LmsEnrollmentsV1 implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'LMS Enrollments',
		name: 'lmsEnrollments',
		// The icon resolves from the versioned node's own file (n8n-core's directory loader fixes every
		// version's icon path against LmsEnrollments.node.js), which the lint rule does not know.
		/* eslint-disable @n8n/community-nodes/icon-validation */
		icon: {
			light: 'file:../../icons/lmsEnrollments.svg',
			dark: 'file:../../icons/lmsEnrollments.dark.svg',
		},
		/* eslint-enable @n8n/community-nodes/icon-validation */
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

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeLmsOperation.call(this, operations);
	}
}
