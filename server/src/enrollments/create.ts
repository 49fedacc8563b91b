import Joi from 'joi';

import { created, type WriteHandler } from '../http/answer';
import { dateTimeParam, parseBody } from '../http/validate';
import { enrollStudent } from './enroll';
import { serializeEnrollment } from './serialize';

/**
 * Two non-empty strings and an optional deadline (an ISO 8601 date-time with its offset, or null
 * for none; a past one is allowed). Whether the ids name real records is the component's call (422).
 */
/** `due_at` as POST and PATCH take it. */
export const dueAtField = dateTimeParam()
	.allow(null)
	.description(
		'The deadline: an ISO 8601 date-time with an offset (e.g. 2026-12-31T17:00:00Z); null for none. A past one is allowed: the enrollment is then overdue at once (event enrollment.overdue).',
	);

export const createEnrollmentBody = Joi.object<{ student_id: string; course_id: string; due_at?: string | null }>({
	student_id: Joi.string().required().description('A student of your organization.'),
	course_id: Joi.string().required().description('A published course of your organization.'),
	due_at: dueAtField,
})
	.required()
	.unknown(false);

/** POST /api/v1/enrollments, and each item of POST /api/v1/enrollments/batch. */
export const createEnrollment: WriteHandler = async ({ body, caller }) => {
	const { student_id, course_id, due_at } = parseBody(createEnrollmentBody, body);
	const dueAt = typeof due_at === 'string' ? new Date(due_at) : null;
	const enrollment = await enrollStudent(caller.organization.id, student_id, course_id, dueAt);
	return created(`/api/v1/enrollments/${enrollment.id}`, serializeEnrollment(enrollment));
};
