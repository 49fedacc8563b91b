import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { idField, type IdFieldOptions } from '../../../shared/descriptions';
import { getExecute } from '../../../shared/execute';

const enrollmentId: IdFieldOptions = {
	displayName: 'Enrollment ID',
	name: 'enrollmentId',
	prefix: 'enr_',
	description: 'The LMS ID of the enrollment, starting with enr_',
};

const properties: INodeProperties[] = [idField(enrollmentId)];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

export const execute = getExecute('/enrollments', enrollmentId);
