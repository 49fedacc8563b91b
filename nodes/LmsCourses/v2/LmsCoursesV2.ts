import type { INodeTypeBaseDescription } from 'n8n-workflow';

import { LmsActionNodeV2 } from '../../shared/action-node-v2';
import { description, operations } from './actions';

/** Version 2: records are picked with resource locators (From List, By ID, By Email for users). */
export class LmsCoursesV2 extends LmsActionNodeV2 {
	constructor(baseDescription: INodeTypeBaseDescription) {
		super(baseDescription, {
			subtitle:
				'={{ { get: "Get a course", getAll: "Get many courses", getCompletionReport: "Get the completion report" }[$parameter["operation"]] }}',
			properties: description,
			operations,
		});
	}
}
