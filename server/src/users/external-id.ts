import { hasControlCharacters } from '../common/text';

/**
 * The one external-id rule (SPEC §16), used by the API's body and filter and the CLI: the HR
 * system's or identity provider's own id for the person, kept exactly as given (ids are opaque:
 * case and spaces count), 1–255 printable characters.
 */
export const EXTERNAL_ID_MAX_LENGTH = 255;

export function isExternalId(text: string): boolean {
	return text.length >= 1 && text.length <= EXTERNAL_ID_MAX_LENGTH && !hasControlCharacters(text);
}

/** The sentence for an id that breaks the rule. */
export const EXTERNAL_ID_RULE = 'the id your HR system or identity provider gives the person: 1 to 255 printable characters (no control characters such as tab or newline)';
