import type { UserStatus } from '../users/model';
import { isEmailAddress } from '../users/email';
import { ScimError } from './errors';
import type { UserResource } from './schema';

/** What a SCIM write asks of the user, in the domain's terms (users/change.ts's UserChange). */
export interface Wanted {
	email?: string;
	name?: string;
	externalId?: string | null;
	status?: UserStatus;
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
 * The name a resource says, against what was there: the first of name.formatted, givenName +
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

/**
 * The change a resource asks for, compared with the user as SCIM showed it (`before`; none for a
 * create). userName is the e-mail: it wins; an e-mail changed only through `emails` (Entra's
 * `emails[type eq "work"].value`) changes it too, and userName with it. externalId absent from a
 * PUT is kept (another door, the HR sync, may own it); null or a PATCH remove clears it.
 */
export function wantedOf(before: UserResource | undefined, after: UserResource, opts: { externalIdGiven: boolean }): Wanted {
	const wanted: Wanted = {};
	const userName = after.userName;
	if (userName !== undefined && userName !== before?.userName) {
		if (!isEmailAddress(userName.trim())) {
			throw new ScimError(
				400,
				'invalidValue',
				`userName ${JSON.stringify(userName.slice(0, 64))} is not an e-mail address: the LMS's userName is the user's e-mail. Map userName to the e-mail (in Entra ID: userPrincipalName or mail).`,
			);
		}
		wanted.email = userName.trim();
	} else {
		const email = emailOf(after);
		if (email !== undefined && email !== emailOf(before) && email.toLowerCase() !== before?.userName?.toLowerCase()) wanted.email = email;
	}
	const name = nameOf(before, after);
	if (name !== undefined) wanted.name = name;
	if (opts.externalIdGiven && (after.externalId ?? null) !== (before?.externalId ?? null)) wanted.externalId = after.externalId ?? null;
	if (typeof after.active === 'boolean' && (before === undefined || after.active !== before.active)) wanted.status = after.active ? 'active' : 'deactivated';
	return wanted;
}
