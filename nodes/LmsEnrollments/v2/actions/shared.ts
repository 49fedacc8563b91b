import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { lmsDateTime, type DateAlone } from '../../../shared/dates';
import { lmsLocator } from '../../../shared/locators';

/** The Enrollment picker of Get and Update. */
export const enrollmentLocator: INodeProperties = lmsLocator('enrollment', {
	displayName: 'Enrollment',
	name: 'enrollment',
	required: true,
	description: 'The enrollment: its LMS ID (enr_…), for example mapped from an earlier LMS node, or pick it from the list',
});

/** Version 2.1's hint, as it shipped: a date alone was that day's midnight. */
const HINT_2_1 =
	"A date picked here is read in the workflow's time zone (workflow Settings → Timezone; n8n's default is America/New_York unless its GENERIC_TIMEZONE says otherwise), so 09:00 there is 14:00Z in winter; an expression such as {{ $now.plus(14, 'days') }} or an ISO date-time with an offset (2026-12-01T09:00:00Z) is taken as it is. The output's due_at shows the instant in UTC.";

/** From 2.2: a date alone is the end of that day; the description says the zone and where it is set. */
const ZONE_2_2 =
	"Read in the workflow's time zone: a date alone (2026-12-01) is the end of that day there (23:59:59.999), a date and time without an offset (2026-12-01T09:00) that wall time there. The zone is the workflow's Settings → Timezone (left at Default: the n8n instance's GENERIC_TIMEZONE, America/New_York out of the box). A value with an offset (2026-12-01T09:00:00Z, +02:00) or an expression such as {{ $now.plus(14, 'days') }} is taken as given. The output's due_at is the instant the LMS stored, in UTC.";

/** Version 2.2 on: the versions whose Due Date reads a date alone as the end of the day. */
export const FROM_2_2 = { '@version': [{ _cnd: { gte: 2.2 } }] };

/**
 * The Due Date field (SPEC §17's due_at) of Create's Additional Fields and Update's Set Due Date,
 * as version 2.1 shows it (`version` 2.1) or 2.2 on (`version` 2.2: the zone in the description).
 */
export function dueDateProperty(description: string, version: 2.1 | 2.2, required = false): INodeProperties {
	return {
		displayName: 'Due Date',
		name: 'dueDate',
		type: 'dateTime',
		default: '',
		required,
		description: version === 2.1 ? description : `${description} ${ZONE_2_2}`,
		...(version === 2.1 ? { hint: HINT_2_1 } : {}),
	};
}

/** How this node's version reads a date alone (2.2 changed it: the compatibility rule keeps 2.1's). */
export function dateAloneOf(this: IExecuteFunctions): DateAlone {
	return this.getNode().typeVersion >= 2.2 ? 'endOfDay' : 'startOfDay';
}

/** Create's `due_at` from Additional Fields → Due Date (version 2.1 on), or nothing. */
export function dueFieldsOf(this: IExecuteFunctions, itemIndex: number): IDataObject {
	if (this.getNode().typeVersion < 2.1) return {};
	const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const dueAt = lmsDateTime(this.getNode(), fields.dueDate, 'Due Date', this.getTimezone(), itemIndex, dateAloneOf.call(this));
	return dueAt === undefined ? {} : { due_at: dueAt };
}
