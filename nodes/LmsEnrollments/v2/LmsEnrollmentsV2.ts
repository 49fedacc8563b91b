import type { INodeTypeBaseDescription } from 'n8n-workflow';

import { LmsActionNodeV2 } from '../../shared/action-node-v2';
import { description, operations } from './actions';

/** Version 2: records are picked with resource locators (From List, By ID, By Email for users). */
export class LmsEnrollmentsV2 extends LmsActionNodeV2 {
	constructor(baseDescription: INodeTypeBaseDescription) {
		super(baseDescription, {
			subtitle:
				'={{ { create: "Enroll a student in a course", get: "Get an enrollment", getAll: "Get many enrollments", update: "Update an enrollment" }[$parameter["operation"]] }}',
			properties: description,
			operations,
			// 2.1: Create's Additional Fields → Due Date; Update's Set Due Date and Clear Due Date.
			// 2.2: a Due Date that is a date alone is the end of that day in the workflow's zone.
			versions: [2, 2.1, 2.2],
		});
	}
}
