import { ids, nullableTimestamp, record, timestamp } from '../common/json-schema';
import { ON_REMOVAL } from './queries';

// What serializeAssignment (./serialize.ts) returns: the OpenAPI document's Assignment.
export const assignmentSchema = record(
	{
		id: ids.assignment,
		group_id: ids.group,
		course_id: ids.course,
		due_in_days: { type: ['integer', 'null'], minimum: 1, maximum: 3650, description: "Each enrollment it makes is due this many days after the assignment's creation; null: no deadline." },
		on_removal: { type: 'string', enum: [...ON_REMOVAL], description: '`withdraw`: a member who leaves has the active enrollment this assignment made withdrawn.' },
		applied_at: { ...nullableTimestamp, description: 'When every member at its creation had been handled; null while it is being applied in the background.' },
		created_at: timestamp,
	},
	"A published course assigned to a group: its active student members are enrolled, now and as they join.",
);
