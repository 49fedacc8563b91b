import { iso } from '../common/time';
import type { UserRow } from './queries';

/** A user as the API shows it: no organization, no email_lower, never the password hash. */
export function serializeUser(user: UserRow) {
	return {
		id: user.id,
		name: user.name,
		email: user.email,
		role: user.role,
		status: user.status,
		external_id: user.externalId,
		created_at: iso(user.createdAt),
		updated_at: iso(user.updatedAt),
		deactivated_at: iso(user.deactivatedAt),
	};
}
