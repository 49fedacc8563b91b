import { ids, nullableTimestamp, record, timestamp } from '../common/json-schema';

// What serializeCourse (./serialize.ts) returns: the OpenAPI document's Course.
export const courseSchema = record(
	{
		id: ids.course,
		title: { type: 'string' },
		description: { type: 'string' },
		status: { type: 'string', const: 'published', description: 'Always published: drafts are not visible through the API.' },
		published_at: nullableTimestamp,
		created_at: timestamp,
		updated_at: timestamp,
	},
	'A published course of the organization.',
);

