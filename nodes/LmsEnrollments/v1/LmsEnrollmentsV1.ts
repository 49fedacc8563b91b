import type { INodeTypeBaseDescription } from 'n8n-workflow';

import { LmsActionNodeV1 } from '../../shared/action-node-v1';
import { description, operations } from './actions';

/**
 * Version 1 of LMS Enrollments as it was published (LmsActionNodeV1): ids typed in. Create may
 * need a second, dependent call (reading the existing enrollment after a 409), one more reason
 * the node is programmatic.
 */
export class LmsEnrollmentsV1 extends LmsActionNodeV1 {
	constructor(baseDescription: INodeTypeBaseDescription) {
		super(baseDescription, {
			subtitle: '={{ { create: "Enroll a student in a course", get: "Get an enrollment", getAll: "Get many enrollments" }[$parameter["operation"]] }}',
			description:
				'Enroll students in courses and read enrollments (status and progress) in your LMS organization',
			properties: description,
			operations,
		});
	}
}
