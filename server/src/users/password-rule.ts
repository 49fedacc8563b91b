import { RuleError } from '../common/rule-error';

export const MIN_PASSWORD_LENGTH = 8;

/**
 * The one strength rule for a new password, wherever it is chosen (users create, set-password,
 * Settings → Change password, a reset link). A NUL byte is refused because sign-in refuses any
 * password holding one (scrypt would otherwise take "pw\0" for "pw"): such a password could
 * never be used.
 */
export function checkNewPassword(password: string): void {
	if (password.length < MIN_PASSWORD_LENGTH) {
		throw new RuleError('weak_password', `The password must be at least ${MIN_PASSWORD_LENGTH} characters.`);
	}
	if (password.includes('\0')) {
		throw new RuleError('weak_password', 'The password cannot contain a NUL character.');
	}
}
