import Joi from 'joi';

import { created, type WriteHandler } from '../http/answer';
import { parseBody } from '../http/validate';
import { createAssignment, DUE_IN_DAYS_MAX } from './assign';
import { ON_REMOVAL, type OnRemoval } from './queries';
import { serializeAssignment } from './serialize';

export const createAssignmentBody = Joi.object<{ group_id: string; course_id: string; due_in_days?: number | null; on_removal?: OnRemoval }>({
	group_id: Joi.string().max(40).required().description('A group of your organization.'),
	course_id: Joi.string().max(40).required().description('A published course of your organization.'),
	due_in_days: Joi.number()
		.integer()
		.min(1)
		.max(DUE_IN_DAYS_MAX)
		.allow(null)
		.description(`Each enrollment it makes is due this many days after the assignment's creation (1–${DUE_IN_DAYS_MAX}); null or left out: no deadline.`),
	on_removal: Joi.string()
		.valid(...ON_REMOVAL)
		.description('`keep` (the default): a member who leaves keeps the enrollment; `withdraw`: their active enrollment made by this assignment is withdrawn as they leave.'),
})
	.required()
	.unknown(false);

/** POST /api/v1/assignments (SPEC §20): 201; the members are enrolled in the background. */
export const createAssignmentEndpoint: WriteHandler = async ({ body, caller }) => {
	const { group_id, course_id, due_in_days = null, on_removal = 'keep' } = parseBody(createAssignmentBody, body);
	const assignment = await createAssignment(caller.organization.id, { groupId: group_id, courseId: course_id, dueInDays: due_in_days, onRemoval: on_removal });
	return created(`/api/v1/assignments/${assignment.id}`, serializeAssignment(assignment));
};
