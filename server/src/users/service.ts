import { UniqueConstraintError } from 'sequelize';

import { RuleError } from '../common/rule-error';
import { hasControlCharacters } from '../common/text';
import { writeTransaction } from '../db/write-transaction';
import { recordEvent } from '../events/record';
import type { Organization } from '../organizations/model';
import { EMAIL_RULE, isEmailAddress } from './email';
import { ROLES, User, type Role } from './model';
import { hashPassword } from './password';
import { serializeUser } from './serialize';

/** Roles that sign in to the settings pages, so they cannot exist without a password. */
export const SIGN_IN_ROLES: readonly Role[] = ['admin', 'super_admin'];
export const MIN_PASSWORD_LENGTH = 8;


export function normaliseRole(role: unknown): Role {
	if (typeof role === 'string' && (ROLES as readonly string[]).includes(role)) return role as Role;
	throw new RuleError('invalid_role', `Unknown role ${JSON.stringify(role ?? '')}: choose from ${ROLES.join(', ')}.`);
}

export function needsPassword(role: Role): boolean {
	return SIGN_IN_ROLES.includes(role);
}

export async function createUser(input: {
	organization: Organization;
	email: unknown;
	name: unknown;
	role: unknown;
	password?: string;
}): Promise<User> {
	const email = typeof input.email === 'string' ? input.email.trim() : '';
	if (!isEmailAddress(email)) {
		throw new RuleError('invalid_email', `${JSON.stringify(email)} is not ${EMAIL_RULE}.`);
	}
	const name = typeof input.name === 'string' ? input.name.trim() : '';
	if (name.length < 1 || name.length > 200) {
		throw new RuleError('invalid_name', 'Give the user a name of 1 to 200 characters.');
	}
	if (hasControlCharacters(name)) {
		throw new RuleError('invalid_name', 'The name contains control characters (such as escape, tab or newline); give it as plain text.');
	}
	const role = normaliseRole(input.role);
	const password = input.password ?? '';
	if (password === '' && needsPassword(role)) {
		throw new RuleError('password_required', `The ${role} role signs in to the settings pages and needs a password.`);
	}
	if (password !== '' && password.length < MIN_PASSWORD_LENGTH) {
		throw new RuleError('weak_password', `The password must be at least ${MIN_PASSWORD_LENGTH} characters.`);
	}
	// Hashed before the transaction opens: scrypt is slow, and a SQLite write lock must not wait on it.
	const passwordHash = password === '' ? null : await hashPassword(password);
	try {
		// The user and its user.created event commit together (SPEC §11).
		return await writeTransaction(User.sequelize!, async (transaction) => {
			const user = await User.create({ organizationId: input.organization.id, email, name, role, passwordHash }, { transaction });
			await recordEvent(transaction, {
				organizationId: user.organizationId,
				type: 'user.created',
				object: serializeUser(user),
				at: user.createdAt,
			});
			return user;
		});
	} catch (err) {
		// E-mail is the sign-in identity, so it is unique across all organizations.
		if (err instanceof UniqueConstraintError) {
			throw new RuleError('email_taken', `A user with e-mail ${email} already exists.`);
		}
		throw err;
	}
}
