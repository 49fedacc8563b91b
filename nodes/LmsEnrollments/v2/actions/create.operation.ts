import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { lmsLocator, requiredLocatorId } from '../../../shared/locators';
import { getRecord } from '../../../shared/execute';
import { asNodeError, lmsApiRequest, lmsProblemOf } from '../../../shared/transport';

const properties: INodeProperties[] = [
	lmsLocator('student', {
		displayName: 'Student',
		name: 'student',
		required: true,
		description:
			'The student to enroll (a user with the student role): pick by name, give the LMS user ID (usr_…), or give the email address to look the user up',
	}),
	lmsLocator('course', {
		displayName: 'Course',
		name: 'course',
		required: true,
		description: 'The published course to enroll the student in: pick it by title or give its LMS ID (crs_…)',
	}),
	{
		displayName: 'If Already Enrolled',
		name: 'ifAlreadyEnrolled',
		type: 'options',
		default: 'fail',
		description: 'What to do when the student already has an enrollment in this course. Choose Return Existing Enrollment to make the step safe to repeat.',
		options: [
			{
				name: 'Fail',
				value: 'fail',
				description: 'Stop with an error that names the existing enrollment',
			},
			{
				name: 'Return Existing Enrollment',
				value: 'returnExisting',
				description:
					'Output the enrollment the student already has, so running the workflow twice for the same person is safe',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { operation: ['create'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const studentId = await requiredLocatorId.call(this, 'student', 'student', 'Student', itemIndex);
	const courseId = await requiredLocatorId.call(this, 'course', 'course', 'Course', itemIndex);
	const ifAlreadyEnrolled = this.getNodeParameter('ifAlreadyEnrolled', itemIndex, 'fail') as string;

	try {
		return await lmsApiRequest.call(this, {
			method: 'POST',
			endpoint: '/enrollments',
			body: { student_id: studentId, course_id: courseId },
			itemIndex,
		});
	} catch (error) {
		const problem = lmsProblemOf(error);
		const existingId = problem?.code === 'already_enrolled' ? problem.enrollment_id : undefined;
		if (ifAlreadyEnrolled !== 'returnExisting' || !existingId) {
			throw asNodeError(this.getNode(), error, itemIndex);
		}
		// The 409 names the enrollment but does not carry it; read it so the output has the
		// same shape as a fresh one.
		return await getRecord.call(this, '/enrollments', existingId, itemIndex);
	}
}
