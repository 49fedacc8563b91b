import { controlCharactersRefused, hasControlCharacters } from '../common/text';
import { DAY_MS, isDateTime } from '../common/time';
import { KeyRuleError } from './errors';
import { SCOPES, type Scope } from './model';

// What a key's label, scopes and expiry may be, whichever door (page, CLI) they come through.

export function normaliseLabel(label: unknown): string {
	const trimmed = typeof label === 'string' ? label.trim() : '';
	if (trimmed.length < 1 || trimmed.length > 100) {
		throw new KeyRuleError('invalid_label', 'Give the key a label of 1 to 100 characters.');
	}
	if (hasControlCharacters(trimmed)) {
		throw new KeyRuleError('invalid_label', controlCharactersRefused('label'));
	}
	return trimmed;
}

/** Deduplicated, in catalogue order; refuses anything outside the catalogue of scopes. */
export function normaliseScopes(scopes: unknown): Scope[] {
	const list = (Array.isArray(scopes) ? scopes : [scopes]).filter((s) => s !== undefined && s !== '');
	const unknown = list.filter((s) => !SCOPES.includes(s as Scope));
	if (unknown.length > 0) {
		throw new KeyRuleError('invalid_scopes', `Unknown scope ${String(unknown[0])}: choose from ${SCOPES.join(', ')}.`);
	}
	const chosen = SCOPES.filter((s) => list.includes(s));
	if (chosen.length === 0) {
		throw new KeyRuleError('invalid_scopes', `Select at least one scope: ${SCOPES.join(', ')}.`);
	}
	return chosen;
}

/** Far enough for any planned hand-over; further than this is a typo (a year 20260) more often than a plan. */
const MAX_EXPIRY_DAYS = 3650;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * An optional expiry (issue 30): nothing (never expires), a number of days from now (`30`), a
 * date (`2026-12-31`: midnight UTC at the start of that day, when the key stops), or an ISO 8601
 * date-time with its offset. It must lie in the future and within 10 years.
 */
export function parseExpiry(value: unknown, now = new Date()): Date | null {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return null;
	if (typeof value !== 'string' && typeof value !== 'number') {
		throw new KeyRuleError('invalid_expiry', 'Give the expiry as a number of days or a date.');
	}
	const text = String(value).trim();
	const refuse = (why: string) =>
		new KeyRuleError('invalid_expiry', `${why} Give a number of days (1–${MAX_EXPIRY_DAYS}), a date such as 2026-12-31, or a date-time such as 2026-12-31T17:00:00Z; or leave it empty for a key that never expires.`);
	let at: Date;
	if (/^\d+$/.test(text)) {
		const days = Number(text);
		if (days < 1 || days > MAX_EXPIRY_DAYS) throw refuse(`${text} days is out of range.`);
		at = new Date(now.getTime() + days * DAY_MS);
	} else {
		const day = DATE_ONLY.exec(text);
		if (day) {
			const [year, month, date] = day.slice(1).map(Number);
			at = new Date(Date.UTC(year, month - 1, date));
			if (at.getUTCMonth() !== month - 1 || at.getUTCDate() !== date) throw refuse(`${text} is not a date that exists.`);
		} else if (isDateTime(text)) {
			at = new Date(text);
		} else {
			throw refuse(`The expiry ${JSON.stringify(text.slice(0, 40))} is not a date.`);
		}
		if (at.getTime() <= now.getTime()) throw refuse(`The expiry ${text} is not in the future.`);
		if (at.getTime() > now.getTime() + MAX_EXPIRY_DAYS * DAY_MS) throw refuse(`The expiry ${text} is more than 10 years away.`);
	}
	return at;
}

/** The longest an old key may keep working after a rotation (SPEC §22): a week. */
const MAX_GRACE_HOURS = 168;

/**
 * `expire_old_after` of a rotation: whole hours (0–168), as a number, `24` or `24h`; empty: 0, the
 * old key stops at once.
 */
export function parseGraceHours(value: unknown): number {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return 0;
	const text = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
	const match = /^(\d{1,3})h?$/i.exec(text);
	const hours = match ? Number(match[1]) : NaN;
	if (!(hours >= 0 && hours <= MAX_GRACE_HOURS)) {
		throw new KeyRuleError(
			'invalid_expire_old_after',
			`Keep the old key working for a whole number of hours from 0 to ${MAX_GRACE_HOURS} (such as 24 or 24h); 0 stops it at once.`,
		);
	}
	return hours;
}
