import Joi from 'joi';

import { RuleError } from '../common/rule-error';
import { readOne } from '../db/table';
import { created, ok, type Answer, type WriteRequest } from '../http/answer';
import { dateTimeParam, parseBody } from '../http/validate';
import { EnrollmentReads, enrollStudent } from './enroll';
import { ENROLLMENTS } from './queries';
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

/**
 * What POST /api/v1/enrollments/batch takes beside `items`: `if_exists: "return"` answers an item
 * whose student is already enrolled in the course 200 with that enrollment, as it is (its due
 * date untouched), instead of 409 already_enrolled: a re-run of a batch then needs no request
 * per item to read what exists. `"fail"` (the default) keeps the 409.
 */
export interface EnrollmentBatchOptions {
	if_exists?: 'fail' | 'return';
}

export const enrollmentBatchOptions = Joi.object<EnrollmentBatchOptions>({
	if_exists: Joi.string()
		.valid('fail', 'return')
		.description(
			'For an item whose student is already enrolled in the course: `fail` (default) answers it 409 `already_enrolled`; `return` answers it 200 with the existing enrollment, unchanged.',
		),
}).unknown(false);

/** POST /api/v1/enrollments, and each item of POST /api/v1/enrollments/batch (with the batch's reads and options). */
export const createEnrollment = async ({ body, caller }: WriteRequest, reads?: EnrollmentReads, options?: EnrollmentBatchOptions): Promise<Answer> => {
	const { student_id, course_id, due_at } = parseBody(createEnrollmentBody, body);
	const dueAt = typeof due_at === 'string' ? new Date(due_at) : null;
	try {
		const enrollment = await enrollStudent(caller.organization.id, student_id, course_id, dueAt, reads);
		return created(`/api/v1/enrollments/${enrollment.id}`, serializeEnrollment(enrollment));
	} catch (err) {
		if (options?.if_exists !== 'return' || !(err instanceof RuleError) || err.code !== 'already_enrolled') throw err;
		const existing = await readOne(ENROLLMENTS, caller.organization.id, String(err.details.enrollmentId));
		if (!existing) throw err;
		return { ...ok(serializeEnrollment(existing)), unchanged: true };
	}
};

/**
 * POST /api/v1/enrollments/batch, before its first item: what every item's rules read, at once
 * (a body that is not a valid item reads nothing here, and is refused by its own check).
 */
export function readForItems({ caller }: WriteRequest, bodies: readonly unknown[]): Promise<EnrollmentReads> {
	return EnrollmentReads.of(
		caller.organization.id,
		bodies.map((body) => {
			const { student_id, course_id } = body as { student_id?: unknown; course_id?: unknown };
			return { studentId: student_id, courseId: course_id };
		}),
	);
}
