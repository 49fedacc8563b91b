import type { UserStatus } from '../users/model';
import { isEmailAddress } from '../users/email';
import type { ProfileField } from '../users/profile';
import { ScimError } from './errors';
import { partsOf, partsText, sameParts, tooLongPart } from './names';
import { ENTERPRISE_SCHEMA, type UserResource } from './schema';

/** What a SCIM write asks of the user, in the domain's terms (users/change.ts's UserChange). */
export interface Wanted {
	email?: string;
	username?: string;
	name?: string;
	externalId?: string | null;
	status?: UserStatus;
	profile?: Partial<Record<ProfileField, string | null>>;
	scimNames?: string;
}

/**
 * Entra ID (without its aadOptscim062020 flag) sends booleans as the strings "True" and "False"
 * (learn.microsoft.com: "Known issues … SCIM 2.0 protocol compliance"). Read them as booleans
 * before scimmy checks types; any other string stays and is refused as not a boolean.
 */
export function booleanOf(value: unknown): unknown {
	if (typeof value !== 'string') return value;
	const lower = value.toLowerCase();
	return lower === 'true' ? true : lower === 'false' ? false : value;
}

/** The e-mail a resource's emails hold: the primary one, else the work one, else the first. */
function emailOf(resource: UserResource | undefined): string | undefined {
	const emails = resource?.emails ?? [];
	return (emails.find((e) => e.primary) ?? emails.find((e) => e.type === 'work') ?? emails[0])?.value;
}

const joined = (name: UserResource['name']) => [name?.givenName, name?.familyName].filter((p) => p !== undefined && p.trim() !== '').join(' ');

/**
 * The LMS name a resource says, against what was there: the first of name.formatted, givenName +
 * familyName, displayName that the request changed (so a PATCH of name.givenName alone is
 * heard although name.formatted still holds the old name); for a new user the first given.
 */
function nameOf(before: UserResource | undefined, after: UserResource): string | undefined {
	const candidates = (r: UserResource | undefined) => [r?.name?.formatted ?? '', joined(r?.name), r?.displayName ?? ''];
	const old = candidates(before);
	const now = candidates(after);
	for (let i = 0; i < now.length; i++) {
		if (now[i].trim() !== '' && (before === undefined || now[i] !== old[i])) return now[i];
	}
	return undefined;
}

/** The profile fields as a resource holds them; title is the core attribute's, else the extension's. */
function profileOf(resource: UserResource | undefined): Array<[ProfileField, Array<string | undefined>]> {
	const extension = resource?.[ENTERPRISE_SCHEMA];
	return [
		['title', [resource?.title, extension?.title]],
		['department', [extension?.department]],
		['employeeNumber', [extension?.employeeNumber]],
		['managerId', [extension?.manager?.value]],
	];
}

/**
 * The profile a write asks for. A whole resource (POST, PUT) says each field: title from the core
 * or, when only there, the extension; absent is null. A PATCH changes the fields whose value it
 * changed: of title's two places the one changed to a value wins, and one removed (the other still
 * showing the old value) clears it.
 */
function profileChange(before: UserResource | undefined, after: UserResource, whole: boolean): Wanted['profile'] {
	const old = new Map(profileOf(before));
	const change: NonNullable<Wanted['profile']> = {};
	for (const [field, values] of profileOf(after)) {
		const was = old.get(field)!.find((v) => v !== undefined) ?? null;
		let value: string | null;
		if (whole) value = values.find((v) => v !== undefined) ?? null;
		else {
			const changed = values.filter((v, i) => v !== old.get(field)![i]);
			if (changed.length === 0) continue;
			value = changed.find((v) => v !== undefined) ?? null;
		}
		if (value !== was) change[field] = value;
	}
	return Object.keys(change).length === 0 ? undefined : change;
}

/**
 * The change a resource asks for, compared with the user as SCIM showed it (`before`; none for a
 * create). userName is the username, kept apart from the e-mail (SPEC §21): the e-mail is the
 * primary, else work, else first of `emails` (Entra's `emails[type eq "work"].value`), and a
 * change of it never moves userName; a new user without e-mails needs a userName that is one.
 * The name parts are kept as sent, the LMS name derived from them. externalId absent from a PUT
 * is kept (another door, the HR sync, may own it); null or a PATCH remove clears it.
 */
export function wantedOf(before: UserResource | undefined, after: UserResource, opts: { externalIdGiven: boolean; whole: boolean }): Wanted {
	const wanted: Wanted = {};
	const userName = after.userName;
	if (userName !== undefined && userName !== before?.userName) wanted.username = userName;
	const email = emailOf(after);
	if (before === undefined) {
		wanted.email = email ?? userName;
		if (wanted.email === undefined || !isEmailAddress(wanted.email.trim())) {
			throw new ScimError(
				400,
				'invalidValue',
				email === undefined
					? `The user needs an e-mail address: send emails (work or primary), or a userName that is an e-mail.`
					: `The e-mail ${JSON.stringify(email.slice(0, 64))} is not an e-mail address such as name@example.com.`,
			);
		}
		wanted.email = wanted.email.trim();
	} else if (email !== undefined && email !== emailOf(before)) {
		wanted.email = email;
		// The username stays as it is, although it may be the old e-mail (users/change.ts would move it along).
		wanted.username ??= userName;
	}
	const parts = partsOf(after);
	const tooLong = tooLongPart(parts);
	if (tooLong !== undefined) throw new ScimError(400, 'invalidValue', `${tooLong === 'displayName' ? tooLong : `name.${tooLong}`} is longer than 255 characters.`);
	// A new user's parts are kept even when none is sent, so that it reads back without any.
	if (before === undefined || !sameParts(parts, partsOf(before))) wanted.scimNames = partsText(parts);
	const name = nameOf(before, after);
	if (name !== undefined) wanted.name = name;
	const profile = profileChange(before, after, opts.whole);
	if (profile !== undefined) wanted.profile = profile;
	if (opts.externalIdGiven && (after.externalId ?? null) !== (before?.externalId ?? null)) wanted.externalId = after.externalId ?? null;
	if (typeof after.active === 'boolean' && (before === undefined || after.active !== before.active)) wanted.status = after.active ? 'active' : 'deactivated';
	return wanted;
}
