import type { INodeTypeBaseDescription } from 'n8n-workflow';

import { LmsActionNodeV2 } from '../../shared/action-node-v2';
import { description, operations } from './actions';

/** Version 2: records are picked with resource locators (From List, By ID, By Email for users). */
export class LmsUsersV2 extends LmsActionNodeV2 {
	constructor(baseDescription: INodeTypeBaseDescription) {
		super(baseDescription, {
			subtitle: '={{ $parameter["operation"] === "getAll" ? "get many users" : $parameter["operation"] === "upsert" ? "create or update a user" : $parameter["operation"] + " a user" }}',
			properties: description,
			operations,
			// 2.1: Get's If No User Matches (fail the item, or continue with no item). Create, Update,
			// Deactivate, Reactivate and Create or Update are new operations, in both versions.
			versions: [2, 2.1],
		});
	}
}
