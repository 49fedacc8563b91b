import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { lmsDateTime } from '../../../shared/dates';
import { lmsLocator } from '../../../shared/locators';

/** The Enrollment picker of Get and Update. */
export const enrollmentLocator: INodeProperties = lmsLocator('enrollment', {
	displayName: 'Enrollment',
	name: 'enrollment',
	required: true,
	description: 'The enrollment: its LMS ID (enr_…), for example mapped from an earlier LMS node, or pick it from the list',
});

/** The Due Date field (SPEC §17's due_at) of Create's Additional Fields and Update's Set Due Date. */
export function dueDateProperty(description: string, required = false): INodeProperties {
	return {
		displayName: 'Due Date',
		name: 'dueDate',
		type: 'dateTime',
		default: '',
		required,
		description,
		hint: "A date picked here is read in the workflow's time zone (workflow Settings → Timezone; n8n's default is America/New_York unless its GENERIC_TIMEZONE says otherwise), so 09:00 there is 14:00Z in winter; an expression such as {{ $now.plus(14, 'days') }} or an ISO date-time with an offset (2026-12-01T09:00:00Z) is taken as it is. The output's due_at shows the instant in UTC.",
	};
}

/** Create's `due_at` from Additional Fields → Due Date (version 2.1 on), or nothing. */
export function dueFieldsOf(this: IExecuteFunctions, itemIndex: number): IDataObject {
	if (this.getNode().typeVersion < 2.1) return {};
	const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const dueAt = lmsDateTime(this.getNode(), fields.dueDate, 'Due Date', this.getTimezone(), itemIndex);
	return dueAt === undefined ? {} : { due_at: dueAt };
}
