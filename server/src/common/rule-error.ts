/**
 * A rule the caller broke (unknown organization, taken email, bad plan…). `message` is a
 * sentence to show the person as it is; `code` is for programs. Anything else that escapes a
 * service is a bug, not a user error.
 */
export class RuleError extends Error {
	constructor(readonly code: string, message: string) {
		super(message);
		this.name = 'RuleError';
	}
}
