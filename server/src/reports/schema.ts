import { count, ids, record } from '../common/json-schema';

// One row of courseCompletion (./course-completion.ts): the OpenAPI document's CourseCompletion.
export const courseCompletionSchema = record(
	{
		course_id: ids.course,
		title: { type: 'string' },
		enrolled: { ...count, description: 'Enrollments in the course, in any status.' },
		active: count,
		completed: count,
		withdrawn: count,
		expired: count,
		overdue: { ...count, description: 'Active enrollments whose due_at has passed.' },
		completion_rate: { type: 'number', minimum: 0, maximum: 1, description: 'completed ÷ enrolled (4 decimals); 0 when nobody is enrolled.' },
		certificates: record(
			{
				valid: { ...count, description: 'Not expired (never-expiring ones included).' },
				expiring_30d: { ...count, description: 'Valid, and expiring within the next 30 days.' },
				expired: { ...count, description: 'expires_at has passed.' },
			},
			'The certificates earned in the course.',
		),
	},
	'One published course in the completion report.',
);

// What getCourseCompletion (./get-course-completion.ts) answers in JSON.
export const courseCompletionReportSchema = {
	type: 'object',
	additionalProperties: false,
	required: ['data'],
	properties: { data: { type: 'array', items: { $ref: '#/components/schemas/CourseCompletion' } } },
};
