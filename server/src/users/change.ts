import { UniqueConstraintError, type Transaction } from 'sequelize';

import { isIdOf } from '../common/id-shapes';
import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import type { Enrollment } from '../enrollments/model';
import { withdrawAllOf } from '../enrollments/withdraw-all';
import { recordEvent } from '../events/record';
import { User, type Role, type UserStatus } from './model';
import { PROFILE_FIELDS, type Profile, type ProfileField } from './profile';
import { END_SESSIONS } from './queries';
import { serializeUser } from './serialize';
import {
	checkEmail,
	checkExternalId,
	checkName,
	checkProfile,
	checkUsername,
	GRANTABLE_ROLES,
	normaliseRole,
	roleNotAllowed,
	SIGN_IN_ROLES,
	uniqueViolation,
	type Door,
} from './service';

/** What a caller asks for: SPEC §16's `{ name?, email?, role?, external_id?, status? }`, and SCIM's username, profile and name parts (SPEC §21). */
export interface UserChange {
	name?: unknown;
	email?: unknown;
	/** Unless given, a username equal to the e-mail follows a change of the e-mail. */
	username?: unknown;
	/** The fields given change (null clears one); the others stay. */
	profile?: Partial<Record<ProfileField, unknown>>;
	/** SCIM's name parts as JSON text (scim/names.ts); a name changed without them clears them. */
	scimNames?: string | null;
	role?: unknown;
	/** null clears it. */
	externalId?: unknown;
	status?: UserStatus;
	/** SCIM DELETE (SPEC §21): with `status: deactivated`, the SCIM resource is gone too. */
	scimDeleted?: true;
}

/** The attributes `user.updated` tells about, as the API names them. */
const ATTRIBUTES = { name: 'name', email: 'email', username: 'username', role: 'role', externalId: 'external_id' } as const;
type Attribute = keyof typeof ATTRIBUTES;

function userNotFound(id: string): RuleError {
	return new RuleError('not_found', `No user ${id}.`, { what: 'user' });
}

/**
 * Changes a user, with its events, in one transaction (SPEC §16):
 * - name, e-mail, role, external id: `user.updated` with the changed fields' old values;
 * - `status: deactivated`: one-step offboarding. Every active enrollment is withdrawn (each
 *   with its `enrollment.withdrawn`), the user's sign-in sessions are deleted, and from the
 *   commit on they cannot sign in or be enrolled; then `user.deactivated`. Certificates stay.
 * - `status: active` on a deactivated user: `user.reactivated`; withdrawn enrollments stay withdrawn.
 *   Whoever reactivates (API, CLI, SCIM POST) brings a SCIM-deleted user back to SCIM too.
 * A request that changes nothing writes and emits nothing (safe to retry).
 *
 * Through the API (`door: 'api'`) admins and super admins cannot be changed (protected_user) and
 * no role beyond instructor can be given (role_not_allowed). The operator's console may change
 * anyone, but grants admin roles only through `users create`, which takes a password.
 *
 * The user's row is locked first (FOR UPDATE on PostgreSQL), so a deactivation and an enrollment
 * of the same user take turns: the enrollment locks the row too (enrollments/enroll.ts) and sees
 * the status the deactivation committed, or commits first and is withdrawn by it.
 */
export async function changeUser(
	organizationId: string | undefined,
	id: string,
	change: UserChange,
	door: Door,
	/** Runs on the locked row before anything changes; throws to refuse (SCIM's If-Match). */
	precondition?: (user: User) => void,
): Promise<UserChangeResult> {
	const asked = checked(change);
	if (!isIdOf('user', id)) throw userNotFound(id);
	const scope = organizationId === undefined ? {} : { organizationId };
	try {
		return await writeTransaction(database(), async (transaction) => {
			const user = await User.findOne({ where: { id, ...scope }, transaction, lock: transaction.LOCK.UPDATE });
			if (!user) throw userNotFound(id);
			precondition?.(user);
			if (door === 'api' && SIGN_IN_ROLES.includes(user.role)) {
				throw new RuleError(
					'protected_user',
					`The user is ${user.role === 'admin' ? 'an admin' : 'a super admin'}; admins and super admins cannot be changed through the API.`,
					{ role: user.role },
				);
			}
			if (asked.role !== undefined && asked.role !== user.role && !GRANTABLE_ROLES.includes(asked.role)) throw roleNotAllowed(asked.role);
			const withdrawn = await apply(user, asked, transaction);
			return { user, withdrawn };
		});
	} catch (err) {
		if (!(err instanceof UniqueConstraintError)) throw err;
		const user = await User.findOne({ where: { id, ...scope }, attributes: ['organizationId', 'email'] });
		if (!user) throw err;
		throw await uniqueViolation(user.organizationId, { email: asked.email ?? user.email, username: asked.username, externalId: asked.externalId ?? null }, id);
	}
}

export interface UserChangeResult {
	user: User;
	/** The enrollments a deactivation withdrew (none for any other change). */
	withdrawn: Enrollment[];
}

interface Asked {
	name?: string;
	email?: string;
	username?: string;
	profile?: Partial<Profile>;
	scimNames?: string | null;
	role?: Role;
	externalId?: string | null;
	status?: UserStatus;
	scimDeleted?: true;
}

/** The request's values, checked by the same rules as a create (the CLI arrives here unchecked). */
function checked(change: UserChange): Asked {
	const asked: Asked = {};
	if (change.name !== undefined) asked.name = checkName(change.name);
	if (change.email !== undefined) asked.email = checkEmail(change.email);
	if (change.username !== undefined) asked.username = checkUsername(change.username);
	if (change.profile !== undefined) asked.profile = checkProfile(change.profile);
	if (change.scimNames !== undefined) asked.scimNames = change.scimNames;
	if (change.role !== undefined) asked.role = normaliseRole(change.role);
	if (change.externalId !== undefined) asked.externalId = checkExternalId(change.externalId);
	if (change.status !== undefined) asked.status = change.status;
	if (change.scimDeleted) asked.scimDeleted = true;
	return asked;
}

async function apply(user: User, asked: Asked, transaction: Transaction): Promise<Enrollment[]> {
	// A username never set apart from the e-mail is the e-mail, and moves with it (SPEC §21's default).
	if (asked.email !== undefined && asked.username === undefined && asked.email !== user.email && user.username.toLowerCase() === user.email.toLowerCase()) {
		asked.username = asked.email;
	}
	const previous: Record<string, unknown> = {};
	for (const attribute of Object.keys(ATTRIBUTES) as Attribute[]) {
		const value = asked[attribute];
		if (value === undefined || value === user[attribute]) continue;
		previous[ATTRIBUTES[attribute]] = user[attribute];
		user.set(attribute, value as never);
	}
	const oldProfile = serializeUser(user).profile;
	for (const field of PROFILE_FIELDS) {
		const value = asked.profile?.[field];
		if (value === undefined || value === user[field]) continue;
		previous.profile = oldProfile;
		user.set(field, value);
	}
	// SCIM's name parts: given with the change, or, when the name changes through another door, gone (SCIM then reads the new name).
	const scimNames = asked.scimNames !== undefined ? asked.scimNames : 'name' in previous ? null : user.scimNames;
	const namesChange = scimNames !== user.scimNames;
	if (namesChange) user.scimNames = scimNames;
	const statusChanges = asked.status !== undefined && asked.status !== user.status;
	// Deleting through SCIM an already deactivated user only marks it (no event: /api/v1 sees no change).
	const marks = asked.scimDeleted === true && user.scimDeletedAt === null;
	if (Object.keys(previous).length === 0 && !statusChanges && !marks && !namesChange) return [];

	const now = new Date();
	if (statusChanges) {
		user.status = asked.status!;
		user.deactivatedAt = asked.status === 'deactivated' ? now : null;
		if (user.status === 'active') user.scimDeletedAt = null;
	}
	if (marks) user.scimDeletedAt = now;
	await user.save({ transaction });

	const event = { organizationId: user.organizationId, at: now };
	if (Object.keys(previous).length > 0) {
		await recordEvent(transaction, { ...event, type: 'user.updated', object: serializeUser(user), previousAttributes: previous });
	}
	if (!statusChanges) return [];
	if (user.status === 'active') {
		await recordEvent(transaction, { ...event, type: 'user.reactivated', object: serializeUser(user) });
		return [];
	}
	const withdrawn = await withdrawAllOf(user.id, transaction, now);
	await endSessions(user.id, transaction);
	await recordEvent(transaction, { ...event, type: 'user.deactivated', object: serializeUser(user) });
	return withdrawn;
}

/**
 * Deletes the user's settings-page sessions (connect-session-sequelize keeps the session as
 * JSON text, `"userId":"usr_…"` among it; ids hold no LIKE wildcards). A session that escaped
 * this would still end at its next request: the viewer is read fresh and must be active
 * (settings/viewer.ts).
 */
async function endSessions(userId: string, transaction: Transaction): Promise<void> {
	await database().run(END_SESSIONS, [`%"userId":"${userId}"%`], transaction);
}
