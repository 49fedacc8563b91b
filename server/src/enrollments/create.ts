import type { RequestHandler } from 'express';
import Joi from 'joi';

import { callerOf } from '../http/auth';
import { jsonBody } from '../http/json-body';
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

/** POST /api/v1/enrollments */
const createEnrollmentHandler: RequestHandler = async (req, res) => {
	const { student_id, course_id } = parseBody(bodySchema, req.body);
	const enrollment = await enrollStudent(callerOf(res).organization.id, student_id, course_id);
	res.status(201).location(`/api/v1/enrollments/${enrollment.id}`).json(serializeEnrollment(enrollment));
};

export const createEnrollment: RequestHandler[] = [...jsonBody, createEnrollmentHandler];
