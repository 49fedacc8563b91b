import type { RouteTable } from '../http/routes';
import { createAssignmentEndpoint } from './create';
import { deleteAssignmentEndpoint } from './delete';
import { getAssignment } from './get';
import { listAssignments } from './list';

/** Assignments carry training (SPEC §20): read:enrollments to read, write:enrollments to write. */
export const assignmentRoutes: RouteTable = {
	'/assignments': {
		get: { scope: 'read:enrollments', handlers: [listAssignments] },
		post: { scope: 'write:enrollments', write: createAssignmentEndpoint },
	},
	'/assignments/:id': {
		get: { scope: 'read:enrollments', handlers: [getAssignment] },
		delete: { scope: 'write:enrollments', handlers: [deleteAssignmentEndpoint] },
	},
};
