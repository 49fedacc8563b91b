import type { INodeProperties } from 'n8n-workflow';

import { lmsLocator } from '../../../shared/locators';

/** The Enrollment picker of Get and Update. */
export const enrollmentLocator: INodeProperties = lmsLocator('enrollment', {
	displayName: 'Enrollment',
	name: 'enrollment',
	required: true,
	description: 'The enrollment: its LMS ID (enr_…), for example mapped from an earlier LMS node, or pick it from the list',
});
