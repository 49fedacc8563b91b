import { hasControlCharacters } from '../common/text';

/**
 * The one e-mail rule, used by the API's `email` filter, the User model and the user service
 * (CLI). Deliberately loose: one @, something before it, a domain with a dot in it whose parts
 * are at most 63 characters each (RFC 1035's label limit, which browsers' e-mail fields enforce:
 * an address past it could be created but never typed into the sign-in form), no spaces or
 * control characters, 254 characters at most (RFC 5321's path limit). Whether the address
 * delivers mail is not ours to judge.
 */
export const EMAIL_MAX_LENGTH = 254;

const SHAPE = /^[^\s@]{1,64}@[^\s@.]{1,63}(\.[^\s@.]{1,63})+$/u;

export function isEmailAddress(text: string): boolean {
	return text.length <= EMAIL_MAX_LENGTH && SHAPE.test(text) && !hasControlCharacters(text);
}

/** The sentence for an address that breaks the rule. */
export const EMAIL_RULE = 'an e-mail address such as name@example.com (one @, a domain with a dot and parts of at most 63 characters, no spaces or control characters, at most 254 characters)';
