import { ID_PATTERNS } from '../common/id-shapes';
import { ids, nullableTimestamp, record, timestamp, withOptional } from '../common/json-schema';
import { ENROLLMENT_STATUSES } from './model';

/** Names an enrollment or a certificate carries only when asked (`expand=`). */
export const expandedNames = {
	student: {
		type: ['object', 'null'],
		additionalProperties: false,
		required: ['id', 'name', 'email'],
		properties: { id: ids.user, name: { type: 'string' }, email: { type: 'string', format: 'email' } },
		description: 'Only with expand=student, which also needs the read:users scope (403 insufficient_scope without it): who the student is (null if the user is no longer there).',
	},
	course: {
		type: ['object', 'null'],
		additionalProperties: false,
		required: ['id', 'title'],
		properties: { id: ids.course, title: { type: 'string' } },
		description: 'Only with expand=course: the course title (null if the course is not published).',
	},
};


// What serializeEnrollment (./serialize.ts) returns: the OpenAPI document's Enrollment.
export const enrollmentSchema = withOptional(record(
	{
		id: ids.enrollment,
		student_id: ids.user,
		course_id: ids.course,
		status: { type: 'string', enum: [...ENROLLMENT_STATUSES] },
		progress_percent: { type: 'integer', minimum: 0, maximum: 100 },
		enrolled_at: timestamp,
		completed_at: { ...nullableTimestamp, description: 'Null until the enrollment is completed.' },
		due_at: { ...nullableTimestamp, description: 'When it must be completed; null when it has no deadline.' },
		overdue: { type: 'boolean', description: 'Read-only: true when the enrollment is active and due_at has passed.' },
		assignment_id: { type: ['string', 'null'], pattern: ID_PATTERNS.assignment.source, description: 'The assignment that made it; null for a direct enrollment.' },
		created_at: timestamp,
		updated_at: timestamp,
	},
	'A student enrolled in a course.',
), expandedNames);

