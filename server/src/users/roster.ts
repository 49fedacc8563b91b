import type { WhereOptions } from 'sequelize';

import { User, type Role, type UserStatus } from './model';

/**
 * The operator's view of an organization's people (the CLI's `users list`): newest first, at most
 * `limit`, with the total so a cut list says so.
 */
export async function rosterOf(
	organizationId: string,
	filters: { role?: Role; status?: UserStatus; limit: number },
): Promise<{ users: User[]; total: number }> {
	const where: WhereOptions<User> = { organizationId };
	if (filters.role) where.role = filters.role;
	if (filters.status) where.status = filters.status;
	const { rows, count } = await User.findAndCountAll({ where, order: [['createdAt', 'DESC'], ['id', 'DESC']], limit: filters.limit });
	return { users: rows, total: count };
}
