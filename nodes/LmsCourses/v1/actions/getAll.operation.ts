import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { returnAllAndLimit } from '../../../shared/descriptions';
import { getManyExecute } from '../../../shared/execute';

const properties: INodeProperties[] = [...returnAllAndLimit('courses')];

export const description = updateDisplayOptions({ show: { operation: ['getAll'] } }, properties);

export const execute = getManyExecute('/courses');
