import { hasControlCharacters } from '../common/text';

/**
 * A user's profile (SPEC §21): what the identity provider's enterprise extension says of the
 * person, each field null until set. Kept exactly as sent; at most 255 characters, no control
 * characters.
 */
export const PROFILE_MAX_LENGTH = 255;

export const PROFILE_FIELDS = ['title', 'department', 'employeeNumber', 'managerId'] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number];
export type Profile = Record<ProfileField, string | null>;

/** The API's names of the profile fields. */
export const PROFILE_NAMES: Record<ProfileField, string> = { title: 'title', department: 'department', employeeNumber: 'employee_number', managerId: 'manager_id' };

export function isProfileValue(text: string): boolean {
	return text.length >= 1 && text.length <= PROFILE_MAX_LENGTH && !hasControlCharacters(text);
}

export const PROFILE_RULE = '1 to 255 characters with no control characters such as tab or newline, or null';
