import type { INodeTypeBaseDescription } from 'n8n-workflow';

import { LmsActionNodeV1 } from '../../shared/action-node-v1';
import { description, operations } from './actions';

/** Version 1 of LMS Courses as it was published (LmsActionNodeV1): ids typed in. */
export class LmsCoursesV1 extends LmsActionNodeV1 {
	constructor(baseDescription: INodeTypeBaseDescription) {
		super(baseDescription, {
			subtitle: '={{ $parameter["operation"] === "get" ? "Get a course" : "Get many courses" }}',
			description:
				'Read the published courses of your LMS organization: list them or get one by ID, for example to find the course to enroll people in',
			properties: description,
			operations,
		});
	}
}
