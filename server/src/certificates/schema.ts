import { ids, nullableTimestamp, record, timestamp, withOptional } from '../common/json-schema';
import { expandedNames } from '../enrollments/schema';

// What serializeCertificate (./serialize.ts) returns: the OpenAPI document's Certificate.
export const certificateSchema = withOptional(record(
	{
		id: ids.certificate,
		student_id: ids.user,
		course_id: ids.course,
		enrollment_id: ids.enrollment,
		issued_at: timestamp,
		expires_at: { ...nullableTimestamp, description: 'Null when the certificate does not expire.' },
		verification_code: { type: 'string' },
	},
	'A certificate earned by completing an enrollment.',
), expandedNames);

