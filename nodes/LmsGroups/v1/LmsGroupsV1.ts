import type { INodeTypeBaseDescription } from 'n8n-workflow';

import { LmsActionNodeV2 } from '../../shared/action-node-v2';
import { description, operations } from './actions';

/** Version 1, built like the other nodes' version 2: every record is picked with a resource locator. */
export class LmsGroupsV1 extends LmsActionNodeV2 {
	constructor(baseDescription: INodeTypeBaseDescription) {
		super(baseDescription, {
			subtitle:
				'={{ { create: "Create a group", get: "Get a group", getAll: "Get many groups", update: "Update a group", delete: "Delete a group", addMembers: "Add members to a group", removeMembers: "Remove members from a group", getMembers: "Get the members of a group", assignCourse: "Assign a course to a group", unassignCourse: "Unassign a course from a group" }[$parameter["operation"]] }}',
			properties: description,
			operations,
			versions: [1],
		});
	}
}
