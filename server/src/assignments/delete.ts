import type { RequestHandler } from 'express';

import { isIdOf } from '../common/id-shapes';
import { problems } from '../common/problem';
import { callerOf } from '../http/auth';
import { deleteAssignment } from './end';

/** DELETE /api/v1/assignments/{id}: 204; it enrolls no one more, and its enrollments stay. */
export const deleteAssignmentEndpoint: RequestHandler = async (req, res) => {
	const id = req.params.id;
	if (!isIdOf('assignment', id) || !(await deleteAssignment(callerOf(res).organization.id, id))) throw problems.notFound('assignment');
	res.status(204).end();
};
