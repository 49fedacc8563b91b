import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { filtersCollection, returnAllAndLimit, FILTERS_DESCRIPTION } from '../../../shared/descriptions';
import { listExecute } from '../../../shared/execute';
import { lmsLocator } from '../../../shared/locators';

const DAY_MS = 24 * 60 * 60 * 1000;

const properties: INodeProperties[] = [
	...returnAllAndLimit('certificates'),
	filtersCollection([
		lmsLocator('course', {
			displayName: 'Course',
			name: 'course',
			description: 'Only certificates for this course: pick it by title or give its ID (crs_…)',
		}),
		{
			displayName: 'Expired Since (Days)',
			name: 'expiredSince',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 30,
			description:
				'Only certificates that expired within this many days before now (for example 7: those that ran out in the past week). Certificates that never expire are left out.',
		},
		{
			displayName: 'Expiring Within (Days)',
			name: 'expiringWithin',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 30,
			description:
				'Only certificates that are still valid and expire within this many days from now (for example 30 for a renewal reminder). Certificates that never expire are left out. Set together with Expired Since, both windows are joined into one.',
		},
		lmsLocator('student', {
			displayName: 'Student',
			name: 'student',
			description: 'Only certificates of this student: pick by name, give the ID (usr_…), or the email address',
		}),
		{
			displayName: 'Verification Code',
			name: 'verificationCode',
			type: 'string',
			default: '',
			placeholder: 'e.g. 7HD3PLX9QA2V',
			description:
				'Only the certificate carrying this code, as printed on it (letters and digits; case, spaces and dashes are ignored). Use it to check a certificate someone shows you: no item means your organization issued none with that code.',
		},
	], FILTERS_DESCRIPTION),
];

export const description = updateDisplayOptions({ show: { operation: ['getAll'] } }, properties);

function days(this: IExecuteFunctions, filters: IDataObject, name: string, label: string, itemIndex: number): number | undefined {
	const value = filters[name];
	if (value === undefined || value === null || value === '') return undefined;
	const number = Number(value);
	if (!Number.isFinite(number) || number <= 0) {
		throw new NodeOperationError(this.getNode(), `${label} must be a number of days above 0, not "${String(value)}"`, {
			itemIndex,
		});
	}
	return number;
}

/**
 * Expiring Within N → expires_after now, expires_before now + N days; Expired Since N →
 * expires_after now − N days, expires_before now. Both set: one window from the past bound to the
 * future bound (the API takes one window).
 */
function expiryWindow(this: IExecuteFunctions, filters: IDataObject, itemIndex: number): IDataObject {
	const within = days.call(this, filters, 'expiringWithin', 'Expiring Within', itemIndex);
	const since = days.call(this, filters, 'expiredSince', 'Expired Since', itemIndex);
	if (within === undefined && since === undefined) return {};
	const now = Date.now();
	return {
		expires_after: new Date(since === undefined ? now : now - since * DAY_MS).toISOString(),
		expires_before: new Date(within === undefined ? now : now + within * DAY_MS).toISOString(),
	};
}

/** The API takes 1–20 letters and digits; what people copy from paper often has spaces or dashes. */
const VERIFICATION_CODE = /^[A-Za-z0-9]{1,20}$/;

function verificationCode(this: IExecuteFunctions, filters: IDataObject, itemIndex: number): IDataObject {
	const value = filters.verificationCode;
	if (value === undefined || value === null || String(value).trim() === '') return {};
	const code = String(value).replace(/[\s-]/g, '');
	if (!VERIFICATION_CODE.test(code)) {
		throw new NodeOperationError(
			this.getNode(),
			`Verification Code must be the letters and digits printed on the certificate (up to 20, e.g. 7HD3PLX9QA2V), not "${String(value)}"`,
			{ itemIndex },
		);
	}
	return { verification_code: code };
}

export const execute = listExecute('/certificates', {
	locators: { student_id: ['student', 'student'], course_id: ['course', 'course'] },
	extraQuery(filters, itemIndex) {
		return { ...expiryWindow.call(this, filters, itemIndex), ...verificationCode.call(this, filters, itemIndex) };
	},
});
