import { hasControlCharacters } from '../common/text';

/**
 * The one username rule (SPEC §21): SCIM's userName, kept exactly as the identity provider sends
 * it (it needs not be an e-mail: Entra may map any attribute to it), 1 to 255 characters, not
 * blank, no control characters. Unique within the organization ignoring case (username_lower).
 */
export const USERNAME_MAX_LENGTH = 255;

export function isUsername(text: string): boolean {
	return text.length <= USERNAME_MAX_LENGTH && text.trim() !== '' && !hasControlCharacters(text);
}

/** The sentence for a username that breaks the rule. */
export const USERNAME_RULE = 'a username of 1 to 255 characters, not blank, with no control characters such as tab or newline';
