import Joi from 'joi';

import { created, type WriteHandler } from '../http/answer';
import { parseBody } from '../http/validate';
import { enrollStudent } from './enroll';
import { serializeEnrollment } from './serialize';

/** Exactly two non-empty strings; whether they name real records is the component's call (422). */
const bodySchema = Joi.object<{ student_id: string; course_id: string }>({
	student_id: Joi.string().required(),
	course_id: Joi.string().required(),
})
	.required()
	.unknown(false);

/** POST /api/v1/enrollments, and each item of POST /api/v1/enrollments/batch. */
export const createEnrollment: WriteHandler = async ({ body, caller }) => {
	const { student_id, course_id } = parseBody(bodySchema, body);
	const enrollment = await enrollStudent(caller.organization.id, student_id, course_id);
	return created(`/api/v1/enrollments/${enrollment.id}`, serializeEnrollment(enrollment));
};
