import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { getRecord } from '../shared/execute';
import { asNodeError, lmsApiRequest, lmsProblemOf } from '../shared/transport';

/**
 * Create's enrollment and its "If Already Enrolled" option, shared by both versions of the node
 * (they differ only in how the student and the course are picked).
 */
export function ifAlreadyEnrolledProperty(description: string): INodeProperties {
	return {
		displayName: 'If Already Enrolled',
		name: 'ifAlreadyEnrolled',
		type: 'options',
		default: 'fail',
		description,
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
	};
}

/** POST /enrollments; on 409 already_enrolled, the existing enrollment when the option says so. */
export async function enroll(
	this: IExecuteFunctions,
	studentId: string,
	courseId: string,
	itemIndex: number,
): Promise<IDataObject> {
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
