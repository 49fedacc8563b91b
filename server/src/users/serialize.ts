import { iso } from '../common/time';
import type { UserRow } from './queries';

/** A user as the API shows it: no organization, no email_lower, never the password hash. */
export function serializeUser(user: UserRow) {
	return {
		id: user.id,
		name: user.name,
		email: user.email,
		username: user.username,
		role: user.role,
		status: user.status,
		external_id: user.externalId,
		// What the identity provider's enterprise extension says (SPEC §21); each null until set.
		profile: { title: user.title, department: user.department, employee_number: user.employeeNumber, manager_id: user.managerId },
		created_at: iso(user.createdAt),
		updated_at: iso(user.updatedAt),
		deactivated_at: iso(user.deactivatedAt),
	};
}
