import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getByLocatorExecute } from '../../../shared/execute';
import { enrollmentLocator } from './shared';

const properties: INodeProperties[] = [enrollmentLocator];

export const description = updateDisplayOptions({ show: { operation: ['get'] } }, properties);

export const execute = getByLocatorExecute('/enrollments', 'enrollment', 'enrollment', 'Enrollment');
