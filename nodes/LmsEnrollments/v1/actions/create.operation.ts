import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { idField } from '../../../shared/descriptions';
import { requiredId, type LmsItemOutcome } from '../../../shared/execute';
import { enroll, enrollMany, ifAlreadyEnrolledProperty } from '../../enroll';

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
	ifAlreadyEnrolledProperty('What to do when the student already has an enrollment in this course'),
];

export const description = updateDisplayOptions({ show: { operation: ['create'] } }, properties);

/** The student and course an input item names. */
function pairOf(this: IExecuteFunctions, itemIndex: number): Promise<[string, string]> {
	const studentId = requiredId.call(this, 'studentId', 'Student ID', itemIndex);
	const courseId = requiredId.call(this, 'courseId', 'Course ID', itemIndex);
	return Promise.resolve([studentId, courseId]);
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const [studentId, courseId] = await pairOf.call(this, itemIndex);
	return await enroll.call(this, studentId, courseId, itemIndex);
}

/** What a stopped batch's error advises: a re-run that repeats nothing. */
export const rerunHint = 'To finish, fix that item and run the workflow again with If Already Enrolled set to Return Existing Enrollment: no one is enrolled twice.';

/** Up to 100 input items in one request (SPEC §18); the output is the same as one per item. */
export async function executeMany(this: IExecuteFunctions, itemIndexes: number[]): Promise<LmsItemOutcome[]> {
	return await enrollMany.call(this, itemIndexes, pairOf);
}
