import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../../../shared/descriptions';

import * as get from './get.operation';
import * as getAll from './getAll.operation';

export const operations = { get, getAll };

export const description: INodeProperties[] = [
	operationSelector([
		{
			name: 'Get',
			value: 'get',
			description: 'Get one certificate (student, course, issue and expiry dates, verification code) by its ID (cert_…). Needs read:enrollments.',
			action: 'Get a certificate',
		},
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List issued certificates, oldest first, optionally only those of one student or one course, or those expiring within or expired since a number of days. Needs read:enrollments.',
			action: 'Get many certificates',
		},
	]),
	...get.description,
	...getAll.description,
];
