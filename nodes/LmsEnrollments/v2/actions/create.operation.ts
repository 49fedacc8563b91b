import type { IDataObject, IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { lmsLocator, requiredLocatorId } from '../../../shared/locators';
import type { LmsItemOutcome } from '../../../shared/execute';
import { enroll, enrollMany, ifAlreadyEnrolledProperty } from '../../enroll';
import { dueDateProperty, dueFieldsOf, FROM_2_2 } from './shared';

const DUE_DATE =
	'When the student must have completed the course (mandatory training). Past the date, an active enrollment is overdue and the LMS emits Enrollment Overdue once. A date already past is allowed (a late assignment): the enrollment is overdue at once.';

/** Additional Fields for the versions `show` names (version 2.1 on; version 2 has none). */
function additionalFields(show: IDisplayOptions['show'], version: 2.1 | 2.2): INodeProperties {
	return {
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Optional fields of the new enrollment',
		displayOptions: { show },
		options: [dueDateProperty(DUE_DATE, version)],
	};
}

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
	ifAlreadyEnrolledProperty('What to do when the student already has an enrollment in this course. Choose Return Existing Enrollment to make the step safe to repeat.'),
	// Two collections of one name, one per version (n8n shows the one whose version matches): 2.1
	// keeps the Due Date it shipped with, 2.2 on reads a date alone as the end of that day.
	additionalFields({ '@version': [2.1] }, 2.1),
	additionalFields(FROM_2_2, 2.2),
];

export const description = updateDisplayOptions({ show: { operation: ['create'] } }, properties);

/** The student and course an input item names (pickers resolved to IDs). */
async function pairOf(this: IExecuteFunctions, itemIndex: number): Promise<[string, string]> {
	const studentId = await requiredLocatorId.call(this, 'student', 'student', 'Student', itemIndex);
	const courseId = await requiredLocatorId.call(this, 'course', 'course', 'Course', itemIndex);
	return [studentId, courseId];
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const [studentId, courseId] = await pairOf.call(this, itemIndex);
	return await enroll.call(this, studentId, courseId, itemIndex, dueFieldsOf.call(this, itemIndex));
}

/** What a stopped batch's error advises: a re-run that repeats nothing. */
export const rerunHint = 'To finish, fix that item and run the workflow again with If Already Enrolled set to Return Existing Enrollment: no one is enrolled twice.';

/** Up to 100 input items in one request (SPEC §18); the output is the same as one per item. */
export async function executeMany(this: IExecuteFunctions, itemIndexes: number[]): Promise<LmsItemOutcome[]> {
	return await enrollMany.call(this, itemIndexes, pairOf, dueFieldsOf);
}
