import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { filtersCollection } from '../../../shared/descriptions';
import { locatorId, lmsLocator } from '../../../shared/locators';
import { lmsApiRequest } from '../../../shared/transport';

const properties: INodeProperties[] = [
	filtersCollection(
		[
			lmsLocator('course', {
				displayName: 'Course',
				name: 'course',
				description: 'Only this course’s row: pick it by title or give its ID (crs_…). Leave it out for every published course.',
			}),
		],
		'Leave empty for one row per published course',
	),
];

export const description = updateDisplayOptions({ show: { operation: ['getCompletionReport'] } }, properties);

/** GET /reports/course_completion (SPEC §17): the report's rows, one output item each. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const courseId = await locatorId.call(this, 'course', filters.course, 'The Course filter', itemIndex);
	const report = await lmsApiRequest.call(this, {
		method: 'GET',
		endpoint: '/reports/course_completion',
		qs: courseId === undefined ? undefined : { course_id: courseId },
		itemIndex,
	});
	if (!Array.isArray(report?.data)) {
		throw new NodeOperationError(this.getNode(), 'The answer from /reports/course_completion is not the LMS completion report: check the Base URL in the credential', {
			itemIndex,
		});
	}
	return report.data as IDataObject[];
}
