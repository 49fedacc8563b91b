import Joi from 'joi';

/**
 * Text that people type (labels, names) is shown later on terminals and pages. Control
 * characters in it can rewrite a terminal (ESC sequences), hide text (NUL, backspace) or break
 * a line-based log, and no real label or name needs them, so they are refused on the way in and
 * escaped on the way out wherever text may predate the rule. This is the one character set:
 * domain rules ask hasControlCharacters, request schemas use plainText, searches and the sign-in
 * log read it too.
 */

// C0 controls (tab and newline included), DEL and the C1 controls; also the Unicode line and
// paragraph separators and bidirectional overrides that reorder what a reader sees.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;
const CONTROL_ALL = new RegExp(CONTROL.source, 'gu');

export function hasControlCharacters(text: string): boolean {
	return CONTROL.test(text);
}

/** Why a typed field was refused, the same sentence everywhere (`what`: "label", "name"…). */
export const controlCharactersRefused = (what: string) =>
	`The ${what} contains control characters (such as escape, tab or newline); give it as plain text.`;

/** A request schema's typed text field: a Joi string that refuses control characters. */
export const plainText = () =>
	Joi.string()
		.pattern(CONTROL, { name: 'control characters', invert: true })
		.messages({ 'string.pattern.invert.name': '{{#label}} contains control characters (such as escape, tab or newline); give it as plain text' });

/** Text as typed with each control character replaced by U+FFFD, so that it can be stored and shown. */
export const printable = (text: string): string => text.replace(CONTROL_ALL, '\uFFFD');

/** Each control character written as a visible escape (`\x1b`, `\u202e`), for terminals. */
export function escapeControlCharacters(text: string): string {
	return text.replace(CONTROL_ALL, (c) => {
		const code = c.codePointAt(0)!;
		return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
	});
}
