import { RuleError } from '../common/rule-error';

export type KeyRuleCode =
	| 'organization_not_found'
	| 'plan_required'
	| 'invalid_label'
	| 'invalid_scopes'
	| 'invalid_expiry'
	| 'invalid_expire_old_after'
	| 'key_not_found'
	| 'key_not_active';

/** Why a bearer token does not authenticate anyone. */
export type AuthErrorCode = 'invalid_api_key' | 'api_key_revoked' | 'api_key_rotated' | 'api_key_expired';

const AUTH_MESSAGES: Record<AuthErrorCode, string> = {
	invalid_api_key: 'The API key is not valid.',
	api_key_revoked: 'The API key was revoked.',
	api_key_rotated: 'The API key was rotated and replaced by a new one.',
	api_key_expired: 'The API key passed its expiry date.',
};

/** A token that names no usable key: the shared RuleError, with the authentication codes. */
export class AuthError extends RuleError {
	declare readonly code: AuthErrorCode;
	constructor(code: AuthErrorCode) {
		super(code, AUTH_MESSAGES[code]);
		this.name = 'AuthError';
	}
}

/** A rule the caller broke about keys: the shared RuleError, with the key codes. */
export class KeyRuleError extends RuleError {
	declare readonly code: KeyRuleCode;
	constructor(code: KeyRuleCode, message: string) {
		super(code, message);
		this.name = 'KeyRuleError';
	}
}
