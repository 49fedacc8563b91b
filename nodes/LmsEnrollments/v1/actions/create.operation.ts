import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { idField } from '../../../shared/descriptions';
import { getRecord, requiredId } from '../../../shared/execute';
import { asNodeError, lmsApiRequest, lmsProblemOf } from '../../../shared/transport';

const properties: INodeProperties[] = [
	idField({
		displayName: 'Student ID',
		name: 'studentId',
		prefix: 'usr_',
		description:
			'The LMS user ID of the student to enroll, starting with usr_. The user must have the student role. To find it from an email address, use LMS Users → Get Many with the Email filter.',
	}),
	idField({
		displayName: 'Course ID',
		name: 'courseId',
		prefix: 'crs_',
		description: 'The LMS ID of a published course, starting with crs_',
	}),
	{
		displayName: 'If Already Enrolled',
		name: 'ifAlreadyEnrolled',
		type: 'options',
		default: 'fail',
		description: 'What to do when the student already has an enrollment in this course',
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
	const studentId = requiredId.call(this, 'studentId', 'Student ID', itemIndex);
	const courseId = requiredId.call(this, 'courseId', 'Course ID', itemIndex);
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
