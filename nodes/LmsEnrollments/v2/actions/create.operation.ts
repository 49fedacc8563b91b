import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { lmsLocator, requiredLocatorId } from '../../../shared/locators';
import { enroll, ifAlreadyEnrolledProperty } from '../../enroll';

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
];

export const description = updateDisplayOptions({ show: { operation: ['create'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const studentId = await requiredLocatorId.call(this, 'student', 'student', 'Student', itemIndex);
	const courseId = await requiredLocatorId.call(this, 'course', 'course', 'Course', itemIndex);
	return await enroll.call(this, studentId, courseId, itemIndex);
}
