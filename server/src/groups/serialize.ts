import { iso } from '../common/time';
import type { GroupRow } from './queries';

/** A group as the API shows it (SPEC §20). */
export function serializeGroup(group: GroupRow) {
	return {
		id: group.id,
		name: group.name,
		description: group.description,
		external_id: group.externalId,
		member_count: Number(group.memberCount),
		created_at: iso(group.createdAt),
		updated_at: iso(group.updatedAt),
	};
}
