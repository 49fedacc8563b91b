import type { RouteTable } from '../http/routes';
import { createGroupEndpoint } from './create';
import { deleteGroupEndpoint } from './delete';
import { getGroup } from './get';
import { listGroups } from './list';
import { addMembersEndpoint, removeMemberEndpoint, removeMembersEndpoint } from './members-change';
import { groupOfPath, listMembers } from './members-list';
import { updateGroupEndpoint } from './update';

/**
 * A change of members names up to MEMBERS_PER_CHANGE (1,000) user ids of about 23 bytes each:
 * more than the 16 KB other bodies get, bounded all the same (a larger body is 413 before parsing).
 */
const MEMBERS_BODY_LIMIT = '64kb';

/** Groups are roster data (SPEC §20): read:users to read, write:users to write. */
export const groupRoutes: RouteTable = {
	'/groups': {
		get: { scope: 'read:users', handlers: [listGroups] },
		post: { scope: 'write:users', write: createGroupEndpoint },
	},
	'/groups/:id': {
		get: { scope: 'read:users', handlers: [getGroup] },
		patch: { scope: 'write:users', write: updateGroupEndpoint },
		delete: { scope: 'write:users', handlers: [deleteGroupEndpoint] },
	},
	'/groups/:id/members': {
		get: { scope: 'read:users', handlers: [groupOfPath, listMembers] },
		post: { scope: 'write:users', write: addMembersEndpoint, bodyLimit: MEMBERS_BODY_LIMIT },
	},
	'/groups/:id/members/remove': {
		post: { scope: 'write:users', write: removeMembersEndpoint, bodyLimit: MEMBERS_BODY_LIMIT },
	},
	'/groups/:id/members/:user_id': {
		delete: { scope: 'write:users', handlers: [removeMemberEndpoint] },
	},
};
