/**
 * Finds API keys in text however they were written, so that no log line ever holds one: plain
 * (`lms_…`), percent-encoded at any depth (`lms%5F…`, `%6c%6d%73%5f…`, `lms%255F…`), as HTML or
 * JSON/JS character escapes, hex, or base64 (e.g. inside a Basic credential). Anything that
 * decodes to `lms_` followed by key characters is replaced, together with the run of text that
 * encodes it. A masked key (`lms_abcd…wxyz`) is redacted as well: it is a key's prefix.
 */

const MARKER = 'lms_[redacted]';
/** `lms_` and at least four key characters: a key, a truncated key, or its mask. */
const KEY = /lms_[0-9A-Za-z]{4,}/;
const KEY_ALL = /lms_[0-9A-Za-z]{4,}/g;

/** One character of a key as it may be written: itself, or an escape that decodes to a character. */
const ESCAPE = String.raw`%[0-9A-Fa-f]{2}|&#[0-9]{1,7};?|&#[xX][0-9A-Fa-f]{1,6};?|\\+u[0-9A-Fa-f]{4}|\\+x[0-9A-Fa-f]{2}`;
// Escapes may be nested in each other (`&%2395;` is `&#95;` percent-encoded), so a run takes
// every character an escape is made of; it may reach a little past the key, which is redacted too.
const ESCAPED_RUN = /[0-9A-Za-z_%&#;\\]+/g;
const HAS_ESCAPE = new RegExp(ESCAPE);
const ONE_ESCAPE = new RegExp(ESCAPE, 'g');

const BASE64_RUN = /[A-Za-z0-9+/_-]{20,}={0,2}/g;
const HEX_RUN = /(?:[0-9A-Fa-f]{2}){12,}/g;
/** `lms_` in hex, in either case: no hex run decodes to a key without it. */
const HEX_KEY = new RegExp(Buffer.from('lms_').toString('hex'), 'i');

function decodeEscape(escape: string): string {
	if (escape.startsWith('%')) return String.fromCharCode(parseInt(escape.slice(1), 16));
	if (escape.startsWith('&#x') || escape.startsWith('&#X')) return String.fromCodePoint(parseInt(escape.slice(3), 16) % 0x110000);
	if (escape.startsWith('&#')) return String.fromCodePoint(parseInt(escape.slice(2), 10) % 0x110000);
	const hex = escape.replace(/^\\+[ux]/, '');
	return String.fromCharCode(parseInt(hex, 16));
}

/** Undoes escapes repeatedly (double and triple encoding), a bounded number of times. */
function unescapeDeep(text: string): string {
	let current = text;
	for (let i = 0; i < 8 && HAS_ESCAPE.test(current); i++) current = current.replace(ONE_ESCAPE, decodeEscape);
	return current;
}

/**
 * The base64 digits that `lms_` always encodes to, whatever precedes and follows it: one per
 * alignment of its four bytes in base64's three-byte groups (digit k holds bits 6k…6k+5, and is
 * fixed when those bits all lie in `lms_`). A run with none of them cannot decode to a key, which
 * spares decoding nearly every run a log line holds (ids, timestamps, paths).
 */
const BASE64_KEY_CORES: readonly string[] = [0, 1, 2].map((before) => {
	const digits = Buffer.concat([Buffer.alloc(before), Buffer.from('lms_'), Buffer.alloc(3)]).toString('base64');
	const first = Math.ceil((8 * before) / 6);
	const end = Math.floor((8 * (before + 4)) / 6);
	return digits.slice(first, end);
});

function decodesToKey(run: string): boolean {
	if (!BASE64_KEY_CORES.some((core) => run.includes(core))) return false;
	for (let offset = 0; offset < 4; offset++) {
		if (KEY.test(Buffer.from(run.slice(offset), 'base64').toString('latin1'))) return true;
	}
	return false;
}

/**
 * A base64 run may have started earlier than the base64 itself (`/` is a path separator as well
 * as a base64 digit): keep the longest leading part that the key does not need.
 */
function redactBase64(run: string): string {
	if (!decodesToKey(run)) return run;
	let keep = 0;
	for (let i = run.indexOf('/'); i >= 0; i = run.indexOf('/', i + 1)) {
		if (decodesToKey(run.slice(i + 1))) keep = i + 1;
		else break;
	}
	return run.slice(0, keep) + MARKER;
}

export function redactKeys(text: string): string {
	let out = text.replace(KEY_ALL, MARKER);
	if (HAS_ESCAPE.test(out)) {
		out = out.replace(ESCAPED_RUN, (run) => (HAS_ESCAPE.test(run) && KEY.test(unescapeDeep(run)) ? MARKER : run));
	}
	// Whole passes are skipped when the text cannot hold an encoded key at all (nearly always).
	if (BASE64_KEY_CORES.some((core) => out.includes(core))) out = out.replace(BASE64_RUN, redactBase64);
	if (HEX_KEY.test(out)) out = out.replace(HEX_RUN, (run) => (KEY.test(Buffer.from(run, 'hex').toString('latin1')) ? MARKER : run));
	return out;
}
