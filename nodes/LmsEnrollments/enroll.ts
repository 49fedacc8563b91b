import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { createInBatch } from '../shared/batch';
import { getRecord, type LmsItemOutcome } from '../shared/execute';
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

/**
 * On 409 already_enrolled, the existing enrollment when If Already Enrolled says so; otherwise
 * the error as it is.
 */
async function existingOr(this: IExecuteFunctions, error: unknown, itemIndex: number): Promise<IDataObject> {
	const ifAlreadyEnrolled = this.getNodeParameter('ifAlreadyEnrolled', itemIndex, 'fail') as string;
	const problem = lmsProblemOf(error);
	const existingId = problem?.code === 'already_enrolled' ? problem.enrollment_id : undefined;
	if (ifAlreadyEnrolled !== 'returnExisting' || !existingId) {
		throw asNodeError(this.getNode(), error, itemIndex);
	}
	// The 409 names the enrollment but does not carry it; read it so the output has the
	// same shape as a fresh one.
	return await getRecord.call(this, '/enrollments', existingId, itemIndex);
}

/** POST /enrollments; on 409 already_enrolled, the existing enrollment when the option says so. */
export async function enroll(
	this: IExecuteFunctions,
	studentId: string,
	courseId: string,
	itemIndex: number,
	more: IDataObject = {},
): Promise<IDataObject> {
	try {
		return await lmsApiRequest.call(this, {
			method: 'POST',
			endpoint: '/enrollments',
			body: { student_id: studentId, course_id: courseId, ...more },
			itemIndex,
		});
	} catch (error) {
		return await existingOr.call(this, error, itemIndex);
	}
}

/** The student and course an input item names, as each version of the node reads them. */
export type EnrollmentPair = (this: IExecuteFunctions, itemIndex: number) => Promise<[studentId: string, courseId: string]>;

/** The other fields an input item gives the new enrollment (version 2.1's Due Date), as the API names them. */
export type EnrollmentFields = (this: IExecuteFunctions, itemIndex: number) => IDataObject;

/**
 * Create for many input items: the enrollments they name go to the LMS as one batch request
 * (shared/batch.ts), each answered as its own POST would be, the If Already Enrolled choice
 * included. When every item says Return Existing Enrollment, the batch asks the LMS for it
 * (`if_exists: "return"`): an existing enrollment comes back in the batch's answer, so a re-run
 * costs one request per 100 items whatever the mix, not one read per existing enrollment.
 */
export async function enrollMany(
	this: IExecuteFunctions,
	itemIndexes: number[],
	pairOf: EnrollmentPair,
	fieldsOf: EnrollmentFields = () => ({}),
): Promise<LmsItemOutcome[]> {
	const returnExisting = itemIndexes.every((itemIndex) => this.getNodeParameter('ifAlreadyEnrolled', itemIndex, 'fail') === 'returnExisting');
	return await createInBatch.call(this, {
		endpoint: '/enrollments',
		label: 'an enrollment',
		itemIndexes,
		envelope: returnExisting ? { if_exists: 'return' } : undefined,
		async read(itemIndex) {
			const [studentId, courseId] = await pairOf.call(this, itemIndex);
			return { student_id: studentId, course_id: courseId, ...fieldsOf.call(this, itemIndex) };
		},
		async one({ body, itemIndex }) {
			const { student_id: studentId, course_id: courseId, ...more } = body;
			return await enroll.call(this, String(studentId), String(courseId), itemIndex, more);
		},
		async refused(error, { itemIndex }) {
			return await existingOr.call(this, error, itemIndex);
		},
	});
}
