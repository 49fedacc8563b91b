import type { Table } from '../db/table';
import type { Where } from '../db/where';
import { searchCondition } from '../search/words';
import type { User } from './model';

/** A user as the API reads one: what serializeUser shows. */
export type UserRow = Pick<User, 'id' | 'name' | 'email' | 'role' | 'createdAt'>;

export const USERS: Table<UserRow> = {
	name: 'users',
	columns: { id: 'id', name: 'name', email: 'email', role: 'role', createdAt: 'created_at' },
	dates: ['createdAt'],
};

export interface UserFilters {
	email?: string;
	role?: string;
	search?: string;
}

/**
 * `email` matches exactly but ignoring case (through email_lower), `role` is one of the four,
 * `search` keeps users whose e-mail or a word of whose name starts with it (search/words.ts).
 */
export function userConditions(where: Where, organizationId: string, { email, role, search }: UserFilters): void {
	if (search !== undefined) searchCondition(where, 'user', organizationId, search);
	where.equals('email_lower', email?.toLowerCase());
	where.equals('role', role);
}
