import { scimErrors } from './errors';

/**
 * SCIM filters (RFC 7644 §3.4.2.2) and PATCH paths (§3.5.2) read by a small grammar of our own,
 * bounded before any work: at most MAX_FILTER_LENGTH characters and MAX_COMPARISONS comparisons,
 * counted by one linear pass over the tokens (quoted strings are one token, so an operator inside
 * a value is not counted). scimmy's own parser expands a filter into its disjunctive normal form
 * before anything can be checked, so 22 `(a or b)` pairs joined by `and`, under 1 KB, became
 * 2^22 alternatives and froze the server: no filter or path reaches scimmy unless it passed here.
 * The tokenizer and the recursive descent are linear in the length, so the answer, valid or not,
 * comes in well under a millisecond whatever the nesting.
 */

const MAX_FILTER_LENGTH = 1000;
const MAX_COMPARISONS = 20;

export type FilterValue = string | number | boolean | null;

/** A parsed filter. A value path `emails[type eq "work"]` is read as its comparisons on `emails.type`. */
export type FilterNode =
	| { kind: 'compare'; attribute: string; operator: string; value?: FilterValue }
	| { kind: 'and' | 'or'; left: FilterNode; right: FilterNode }
	| { kind: 'not'; node: FilterNode };

const OPERATORS = new Set(['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'lt', 'ge', 'le', 'pr']);
/** An attribute path: an optional schema URN, a name, sub-attributes (RFC 7644 §3.10, RFC 7643 §2.1). */
const ATTRIBUTE_PATH = /^(?:urn:[A-Za-z0-9.:_-]+:)?[A-Za-z][\w$-]*(?:\.[A-Za-z][\w$-]*)?$/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$/;

type Token = { type: 'word' | 'string' | '(' | ')' | '[' | ']'; text: string; at: number };

function invalid(detail: string): never {
	throw scimErrors.invalidFilter(`${detail} Example: userName eq "ada@example.com".`);
}

/** The tokens of a filter, in one pass; a string token keeps its quotes (decoded by the parser). */
function tokenize(text: string): Token[] {
	const tokens: Token[] = [];
	let i = 0;
	while (i < text.length) {
		const c = text[i];
		if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
			i++;
		} else if (c === '(' || c === ')' || c === '[' || c === ']') {
			tokens.push({ type: c, text: c, at: i });
			i++;
		} else if (c === '"') {
			let j = i + 1;
			while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
			if (j >= text.length) invalid(`The string that starts at character ${i + 1} is not closed with a double quote.`);
			tokens.push({ type: 'string', text: text.slice(i, j + 1), at: i });
			i = j + 1;
		} else {
			let j = i;
			while (j < text.length && !' \t\n\r()[]"'.includes(text[j])) j++;
			tokens.push({ type: 'word', text: text.slice(i, j), at: i });
			i = j;
		}
	}
	return tokens;
}

/** Recursive descent over the tokens: or < and < not < comparison / group / value path. */
class Parser {
	private i = 0;
	constructor(private readonly tokens: Token[]) {}

	parse(): FilterNode {
		if (this.tokens.length === 0) invalid('The filter is empty.');
		const node = this.or(undefined);
		const rest = this.tokens[this.i];
		if (rest) invalid(`Unexpected ${JSON.stringify(rest.text.slice(0, 40))} at character ${rest.at + 1}.`);
		return node;
	}

	private peekWord(): string | undefined {
		const t = this.tokens[this.i];
		return t?.type === 'word' ? t.text.toLowerCase() : undefined;
	}

	private expect(type: Token['type']): void {
		const t = this.tokens[this.i];
		if (t?.type !== type) invalid(t ? `Expected "${type}" at character ${t.at + 1}.` : `The filter ends where "${type}" was expected.`);
		this.i++;
	}

	private or(prefix: string | undefined): FilterNode {
		let left = this.and(prefix);
		while (this.peekWord() === 'or') {
			this.i++;
			left = { kind: 'or', left, right: this.and(prefix) };
		}
		return left;
	}

	private and(prefix: string | undefined): FilterNode {
		let left = this.unary(prefix);
		while (this.peekWord() === 'and') {
			this.i++;
			left = { kind: 'and', left, right: this.unary(prefix) };
		}
		return left;
	}

	private unary(prefix: string | undefined): FilterNode {
		const t = this.tokens[this.i];
		if (t === undefined) invalid('The filter ends where a comparison was expected.');
		if (t.type === '(') {
			this.i++;
			const node = this.or(prefix);
			this.expect(')');
			return node;
		}
		if (this.peekWord() === 'not') {
			this.i++;
			this.expect('(');
			const node = this.or(prefix);
			this.expect(')');
			return { kind: 'not', node };
		}
		return this.comparison(prefix);
	}

	private comparison(prefix: string | undefined): FilterNode {
		const t = this.tokens[this.i];
		if (t?.type !== 'word' || !ATTRIBUTE_PATH.test(t.text)) invalid(`Expected an attribute name at character ${(t?.at ?? 0) + 1}.`);
		this.i++;
		const attribute = prefix === undefined ? t.text : `${prefix}.${t.text}`;
		if (this.tokens[this.i]?.type === '[') {
			// A value path: its filter applies to the sub-attributes of this attribute (not nested again).
			if (prefix !== undefined || t.text.includes('.')) invalid(`A value filter cannot be nested or follow a sub-attribute (at character ${t.at + 1}).`);
			this.i++;
			const node = this.or(attribute);
			this.expect(']');
			return node;
		}
		const operator = this.peekWord();
		if (operator === undefined || !OPERATORS.has(operator)) invalid(`Expected an operator (eq, ne, co, sw, ew, gt, lt, ge, le, pr) after ${attribute}.`);
		this.i++;
		if (operator === 'pr') return { kind: 'compare', attribute, operator };
		return { kind: 'compare', attribute, operator, value: this.value(attribute) };
	}

	private value(attribute: string): FilterValue {
		const t = this.tokens[this.i];
		if (t === undefined) invalid(`The filter ends where the value for ${attribute} was expected.`);
		this.i++;
		if (t.type === 'string') {
			try {
				return JSON.parse(t.text) as string;
			} catch {
				invalid(`The string at character ${t.at + 1} has an escape JSON does not allow.`);
			}
		}
		const word = t.type === 'word' ? t.text.toLowerCase() : '';
		if (word === 'true' || word === 'false') return word === 'true';
		if (word === 'null') return null;
		if (NUMBER.test(word)) return Number(word);
		return invalid(`The value for ${attribute} at character ${t.at + 1} must be a string in double quotes, a number, true, false or null.`);
	}
}

/**
 * A filter checked against the bounds, then parsed: 400 invalidFilter for a filter too long, with
 * too many comparisons, or that does not follow the grammar.
 */
export function parseFilter(text: string): FilterNode {
	if (text.length > MAX_FILTER_LENGTH) invalid(`The filter is longer than ${MAX_FILTER_LENGTH} characters: split the query.`);
	const tokens = tokenize(text);
	let comparisons = 0;
	for (const t of tokens) if (t.type === 'word' && OPERATORS.has(t.text.toLowerCase())) comparisons++;
	if (comparisons > MAX_COMPARISONS) invalid(`The filter has ${comparisons} comparisons; at most ${MAX_COMPARISONS} are allowed: split the query.`);
	return new Parser(tokens).parse();
}

/**
 * How many alternatives the filter's disjunctive normal form has (what scimmy expands it into),
 * counted without expanding: [of the node, of its negation], saturating at a million.
 */
function alternatives(node: FilterNode): [number, number] {
	const cap = (n: number) => Math.min(n, 1_000_000);
	switch (node.kind) {
		case 'compare':
			return [1, 1];
		case 'not': {
			const [positive, negative] = alternatives(node.node);
			return [negative, positive];
		}
		case 'and': {
			const [l, ln] = alternatives(node.left);
			const [r, rn] = alternatives(node.right);
			return [cap(l * r), cap(ln + rn)];
		}
		case 'or': {
			const [l, ln] = alternatives(node.left);
			const [r, rn] = alternatives(node.right);
			return [cap(l + r), cap(ln * rn)];
		}
	}
}

/** The most alternatives a filter may expand to where scimmy evaluates it (PATCH value paths). */
const MAX_ALTERNATIVES = 20;

/**
 * A PATCH path (RFC 7644 §3.5.2: attrPath, or attrPath "[" valFilter "]" optionally followed by
 * "." subAttr) checked before scimmy reads it: the same length and comparison bounds as a filter,
 * and the value filter's normal form at most MAX_ALTERNATIVES alternatives, since scimmy expands it.
 */
export function checkPatchPath(path: string): void {
	if (path.length > MAX_FILTER_LENGTH) invalid(`The PATCH path is longer than ${MAX_FILTER_LENGTH} characters.`);
	const open = path.indexOf('[');
	if (open === -1) {
		if (!ATTRIBUTE_PATH.test(path.trim())) throw scimErrors.invalidPath(`The PATCH path ${JSON.stringify(path.slice(0, 80))} is not an attribute path, e.g. name.givenName or emails[type eq "work"].value.`);
		return;
	}
	const close = path.lastIndexOf(']');
	const attribute = path.slice(0, open).trim();
	const after = path.slice(close + 1);
	if (close < open || !ATTRIBUTE_PATH.test(attribute) || attribute.includes('.') || !/^(?:\.[A-Za-z][\w$-]*)?$/.test(after)) {
		throw scimErrors.invalidPath(`The PATCH path ${JSON.stringify(path.slice(0, 80))} is not attribute[filter] or attribute[filter].subAttribute.`);
	}
	const [count] = alternatives(parseFilter(path.slice(open + 1, close)));
	if (count > MAX_ALTERNATIVES) invalid(`The PATCH path's filter has ${count} alternatives once its and/or are expanded; at most ${MAX_ALTERNATIVES} are allowed.`);
}
