import { Op, UniqueConstraintError } from 'sequelize';

import { RuleError } from '../common/rule-error';
import { controlCharactersRefused, hasControlCharacters } from '../common/text';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { recordEvent } from '../events/record';
import type { Organization } from '../organizations/model';
import { EMAIL_RULE, isEmailAddress } from './email';
import { EXTERNAL_ID_RULE, isExternalId } from './external-id';
import { ROLES, User, type Role, type UserStatus } from './model';
import { isProfileValue, PROFILE_FIELDS, PROFILE_NAMES, PROFILE_RULE, type Profile, type ProfileField } from './profile';
import { isUsername, USERNAME_RULE } from './username';
import { hashPassword } from './password';
import { checkNewPassword } from './password-rule';
import { serializeUser } from './serialize';

/** Roles that sign in to the settings pages, so they cannot exist without a password. */
export const SIGN_IN_ROLES: readonly Role[] = ['admin', 'super_admin'];

export function normaliseRole(role: unknown): Role {
	if (typeof role === 'string' && (ROLES as readonly string[]).includes(role)) return role as Role;
	throw new RuleError('invalid_role', `Unknown role ${JSON.stringify(role ?? '')}: choose from ${ROLES.join(', ')}.`);
}

export function needsPassword(role: Role): boolean {
	return SIGN_IN_ROLES.includes(role);
}

/**
 * The roles a key may grant (SPEC §16): admins and super admins manage keys, so a key can never
 * make one, and nobody who is one can be changed through a key.
 */
export const GRANTABLE_ROLES: readonly Role[] = ['student', 'instructor'];

/** Who is asking: an API key (SPEC §16's role rules), or the operator at the console (CLI, demo). */
export type Door = 'api' | 'operator';

export function roleNotAllowed(role: Role): RuleError {
	return new RuleError(
		'role_not_allowed',
		`The ${role} role cannot be granted here: choose ${GRANTABLE_ROLES.join(' or ')}. Admins and super admins are made by the operator (lms-server users create).`,
		{ role },
	);
}

export function checkEmail(value: unknown): string {
	const email = typeof value === 'string' ? value.trim() : '';
	if (!isEmailAddress(email)) {
		throw new RuleError('invalid_email', `${JSON.stringify(email)} is not ${EMAIL_RULE}.`, { field: 'email' });
	}
	return email;
}

export function checkName(value: unknown): string {
	const name = typeof value === 'string' ? value.trim() : '';
	if (name.length < 1 || name.length > 200) {
		throw new RuleError('invalid_name', 'Give the user a name of 1 to 200 characters.', { field: 'name' });
	}
	if (hasControlCharacters(name)) {
		throw new RuleError('invalid_name', controlCharactersRefused('name'), { field: 'name' });
	}
	return name;
}

/** An external id as given, or null (none / cleared). */
export function checkExternalId(value: unknown): string | null {
	if (value === null || value === undefined) return null;
	if (typeof value !== 'string' || !isExternalId(value)) {
		throw new RuleError('invalid_external_id', `external_id must be ${EXTERNAL_ID_RULE}.`, { field: 'external_id' });
	}
	return value;
}

/** A username as given (SPEC §21: needs not be an e-mail), checked by users/username.ts. */
export function checkUsername(value: unknown): string {
	if (typeof value !== 'string' || !isUsername(value)) {
		throw new RuleError('invalid_username', `username must be ${USERNAME_RULE}.`, { field: 'username' });
	}
	return value;
}

/** The profile fields given (each a string, or null to clear), checked by users/profile.ts. */
export function checkProfile(value: Partial<Record<ProfileField, unknown>>): Partial<Profile> {
	const profile: Partial<Profile> = {};
	for (const field of PROFILE_FIELDS) {
		const given = value[field];
		if (given === undefined) continue;
		if (given !== null && (typeof given !== 'string' || !isProfileValue(given))) {
			throw new RuleError('invalid_profile', `profile.${PROFILE_NAMES[field]} must be ${PROFILE_RULE}.`, { field: `profile.${PROFILE_NAMES[field]}` });
		}
		profile[field] = given;
	}
	return profile;
}

/** What must be unique in the organization: the e-mail, the username (both ignoring case) and the external id. */
export interface UniqueValues {
	email: string;
	username?: string;
	externalId: string | null;
}

/**
 * Who already holds an e-mail, username or external id in the organization, as the refusal that
 * names them; undefined when none is taken there. All three are unique per organization in the
 * database (migrations 0013, 0022), so of concurrent identical creates one insert wins and the
 * others land here and name the winner.
 */
async function takenBy(organizationId: string, { email, username, externalId }: UniqueValues, exceptId?: string): Promise<RuleError | undefined> {
	const others = exceptId === undefined ? {} : { id: { [Op.ne]: exceptId } };
	const byEmail = await User.findOne({ where: { organizationId, emailLower: email.toLowerCase(), ...others }, attributes: ['id'] });
	if (byEmail) {
		return new RuleError('email_taken', `A user with e-mail ${email} already exists in the organization (${byEmail.id}).`, { userId: byEmail.id });
	}
	const byUsername = username === undefined ? null : await User.findOne({ where: { organizationId, usernameLower: username.toLowerCase(), ...others }, attributes: ['id'] });
	if (byUsername) {
		return new RuleError('username_taken', `A user with username ${JSON.stringify(username)} already exists in the organization (${byUsername.id}).`, { userId: byUsername.id });
	}
	if (externalId === null) return undefined;
	const byExternalId = await User.findOne({ where: { organizationId, externalId, ...others }, attributes: ['id'] });
	if (byExternalId) {
		return new RuleError('external_id_taken', `A user with external_id ${JSON.stringify(externalId)} already exists in the organization (${byExternalId.id}).`, {
			userId: byExternalId.id,
		});
	}
	return undefined;
}

/**
 * The refusal for a unique violation on users: the e-mail, username or external id taken in the
 * organization, naming who holds it; else an e-mail that is another organization's sign-in
 * account (sign-in names are unique across organizations), named without its holder.
 */
export async function uniqueViolation(organizationId: string, values: UniqueValues, exceptId?: string): Promise<RuleError> {
	return (
		(await takenBy(organizationId, values, exceptId)) ??
		new RuleError('email_taken', `The e-mail ${values.email} is already another account's sign-in name.`)
	);
}

export async function createUser(input: {
	organization: Pick<Organization, 'id'>;
	email: unknown;
	name: unknown;
	role: unknown;
	externalId?: unknown;
	/** Defaults to the e-mail (SPEC §21). */
	username?: unknown;
	profile?: Partial<Record<ProfileField, unknown>>;
	/** The name parts SCIM wrote, as JSON text (scim/names.ts). */
	scimNames?: string | null;
	/** `deactivated`: created, then deactivated in the same transaction (user.created, user.deactivated). */
	status?: UserStatus;
	password?: string;
	/** `api` refuses admin and super_admin (role_not_allowed); defaults to the operator. */
	door?: Door;
}): Promise<User> {
	const email = checkEmail(input.email);
	const name = checkName(input.name);
	const role = normaliseRole(input.role);
	if (input.door === 'api' && !GRANTABLE_ROLES.includes(role)) throw roleNotAllowed(role);
	const externalId = checkExternalId(input.externalId);
	const username = input.username === undefined ? email : checkUsername(input.username);
	const profile = checkProfile(input.profile ?? {});
	const password = input.password ?? '';
	if (password === '' && needsPassword(role)) {
		throw new RuleError('password_required', `The ${role} role signs in to the settings pages and needs a password.`);
	}
	if (password !== '') checkNewPassword(password);
	// Hashed before the transaction opens: scrypt is slow, and a SQLite write lock must not wait on it.
	const passwordHash = password === '' ? null : await hashPassword(password);
	try {
		// The user and its user.created event commit together (SPEC §11), and a deactivation asked with it.
		return await writeTransaction(database(), async (transaction) => {
			const user = await User.create(
				{ organizationId: input.organization.id, email, username, name, role, externalId, passwordHash, scimNames: input.scimNames ?? null, ...profile },
				{ transaction },
			);
			const event = { organizationId: user.organizationId, at: user.createdAt };
			await recordEvent(transaction, { ...event, type: 'user.created', object: serializeUser(user) });
			if (input.status === 'deactivated') {
				user.status = 'deactivated';
				user.deactivatedAt = user.createdAt;
				await user.save({ transaction, silent: true });
				await recordEvent(transaction, { ...event, type: 'user.deactivated', object: serializeUser(user) });
			}
			return user;
		});
	} catch (err) {
		if (err instanceof UniqueConstraintError) throw await uniqueViolation(input.organization.id, { email, username, externalId });
		throw err;
	}
}
