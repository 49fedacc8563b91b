import Joi from 'joi';

import { ok, type WriteHandler } from '../http/answer';
import { parseBody } from '../http/validate';
import { changeEnrollment } from './change';
import { dueAtField } from './create';
import { serializeEnrollment } from './serialize';

const PROGRESS = 'progress_percent must be an integer from 0 to 100';

/**
 * `status`, `progress_percent` and/or `due_at` (null clears it), nothing else. `expired` is the
 * platform's to set, never the API's. Strict types: "50" and 50.5 are not progress.
 */
export const updateEnrollmentBody = Joi.object<{ status?: 'active' | 'completed' | 'withdrawn'; progress_percent?: number; due_at?: string | null }>({
	status: Joi.string().valid('active', 'completed', 'withdrawn').description('`expired` is set by the platform only.'),
	progress_percent: Joi.number()
		.strict()
		.integer()
		.min(0)
		.max(100)
		.messages({ 'number.base': PROGRESS, 'number.integer': PROGRESS, 'number.min': PROGRESS, 'number.max': PROGRESS })
		.description('100 completes the enrollment.'),
	due_at: dueAtField,
})
	.or('status', 'progress_percent', 'due_at')
	.messages({ 'object.missing': 'Send status, progress_percent, due_at or several of them' })
	.required()
	.unknown(false);

/** PATCH /api/v1/enrollments/{id} */
export const updateEnrollment: WriteHandler = async ({ body, params, caller }) => {
	const { status, progress_percent: progress, due_at } = parseBody(updateEnrollmentBody, body);
	const dueAt = due_at === undefined ? undefined : due_at === null ? null : new Date(due_at);
	const enrollment = await changeEnrollment(caller.organization.id, params.id, { status, progress, dueAt });
	return ok(serializeEnrollment(enrollment));
};
