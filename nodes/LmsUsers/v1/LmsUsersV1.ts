import type { INodeTypeBaseDescription } from 'n8n-workflow';

import { LmsActionNodeV1 } from '../../shared/action-node-v1';
import { description, operations } from './actions';

/** Version 1 of LMS Users as it was published (LmsActionNodeV1): ids typed in. */
export class LmsUsersV1 extends LmsActionNodeV1 {
	constructor(baseDescription: INodeTypeBaseDescription) {
		super(baseDescription, {
			subtitle: '={{ $parameter["operation"] === "get" ? "Get a user" : "Get many users" }}',
			description:
				'Read the users of your LMS organization (students, instructors, admins): list them, find one by email or role, or get one by ID',
			properties: description,
			operations,
		});
	}
}
