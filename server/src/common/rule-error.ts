/** Facts about a broken rule that a caller may need besides the sentence (an id, a state). */
export type RuleDetails = Readonly<Record<string, string | number>>;

/**
 * A rule the caller broke (unknown organization, taken email, bad plan, an enrollment that
 * cannot change…). `message` is a sentence to show the person as it is; `code` is for
 * programs; `details` holds the facts behind it. Domain code throws only these: it knows
 * nothing of HTTP. The API turns them into problem+json in one table (http/rule-problems.ts),
 * the CLI prints the message, the settings pages show it. Anything else that escapes a
 * service is a bug, not a user error.
 */
export class RuleError extends Error {
	constructor(
		readonly code: string,
		message: string,
		readonly details: RuleDetails = {},
	) {
		super(message);
		this.name = 'RuleError';
	}
}
