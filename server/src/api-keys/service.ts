import { Op, type Transaction } from 'sequelize';

import { RuleError } from '../common/rule-error';
import { controlCharactersRefused, hasControlCharacters } from '../common/text';
import { isDateTime } from '../common/time';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { Organization, type Plan } from '../organizations/model';
import { hasApiAccess } from '../organizations/plan';
import { generateKey, hashKey, isWellFormedKey, maskKey } from './key-format';
import { ApiKey, AuditEvent, isPastExpiry, SCOPES, scopeList, type AuditAction, type Scope } from './model';
import { keyLookup, type KeyLookupRow } from './queries';
import { disableEndpointsOfKey, handEndpointsTo, type OwnedEndpoint } from '../webhooks/owners';

/**
 * The one place for the key rules. The settings page and the CLI both call this module, so
 * "Enterprise only, label required, at least one known scope, audit everything" holds
 * whichever door a Super Admin or an operator comes through.
 */

/** Who acts: a person on the settings page, the operator's console, or an API key (webhooks through the API). */
export type Actor =
	| { kind: 'user'; id: string; name: string }
	| { kind: 'cli' }
	| { kind: 'key'; id: string; name: string }
	/** The server itself: a key's expiry reminders (expiry-sweep.ts). */
	| { kind: 'system' };
export interface Origin {
	ip?: string | null;
	userAgent?: string | null;
}

export type KeyRuleCode =
	| 'organization_not_found'
	| 'plan_required'
	| 'invalid_label'
	| 'invalid_scopes'
	| 'invalid_expiry'
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

export interface IssuedKey {
	apiKey: ApiKey;
	/** The full secret: hand it to the person once, never store or log it. */
	secret: string;
	/** After a rotation: the webhook endpoints that passed from the old key to this one. */
	movedEndpoints?: OwnedEndpoint[];
}

const LAST_USED_RESOLUTION_MS = 60_000;

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

const DAY_MS = 86_400_000;
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

async function organizationWithApiAccess(organizationId: string, transaction?: Transaction): Promise<Organization> {
	const org = await Organization.findByPk(organizationId, { transaction });
	if (!org) throw new KeyRuleError('organization_not_found', 'No such organization.');
	if (!hasApiAccess(org.plan)) {
		throw new KeyRuleError('plan_required', 'API keys are available on the Enterprise plan only. Upgrade the organization first.');
	}
	return org;
}

/**
 * One entry of the audit log the keys page shows, in the transaction of the change it records.
 * Webhook endpoints' creation and deletion are written here too (`apiKeyId`: the endpoint's key,
 * empty for an endpoint older than owner keys).
 */
export async function writeAudit(
	entry: { organizationId: string; action: AuditAction; apiKeyId: string; webhookEndpointId?: string },
	actor: Actor,
	origin: Origin,
	transaction: Transaction,
): Promise<void> {
	await AuditEvent.create(
		{
			organizationId: entry.organizationId,
			action: entry.action,
			apiKeyId: entry.apiKeyId,
			webhookEndpointId: entry.webhookEndpointId ?? null,
			actor: actorId(actor),
			actorName: actor.kind === 'cli' || actor.kind === 'system' ? actor.kind : actor.name,
			ip: origin.ip ?? null,
			userAgent: origin.userAgent?.slice(0, 300) ?? null,
		},
		{ transaction },
	);
}

function audit(action: AuditAction, apiKey: ApiKey, actor: Actor, origin: Origin, transaction: Transaction): Promise<void> {
	return writeAudit({ organizationId: apiKey.organizationId, action, apiKeyId: apiKey.id }, actor, origin, transaction);
}

function actorId(actor: Actor): string {
	return actor.kind === 'cli' || actor.kind === 'system' ? actor.kind : actor.id;
}

async function insertKey(
	organizationId: string,
	label: string,
	scopes: Scope[],
	expiresAt: Date | null,
	actor: Actor,
	transaction: Transaction,
): Promise<IssuedKey> {
	const secret = generateKey();
	const apiKey = await ApiKey.create(
		{
			organizationId,
			label,
			scopes: scopes.join(' '),
			expiresAt,
			keyHash: hashKey(secret),
			masked: maskKey(secret),
			createdBy: actorId(actor),
		},
		{ transaction },
	);
	return { apiKey, secret };
}

export async function createKey(input: {
	organizationId: string;
	label: unknown;
	scopes: unknown;
	/** Optional: an ISO 8601 date or date-time in the future, or a number of days from now (expiry.ts). */
	expires?: unknown;
	actor: Actor;
	origin?: Origin;
}): Promise<IssuedKey> {
	const label = normaliseLabel(input.label);
	const scopes = normaliseScopes(input.scopes);
	const expiresAt = parseExpiry(input.expires);
	return writeTransaction(database(), async (transaction) => {
		await organizationWithApiAccess(input.organizationId, transaction);
		const issued = await insertKey(input.organizationId, label, scopes, expiresAt, input.actor, transaction);
		await audit('key.created', issued.apiKey, input.actor, input.origin ?? {}, transaction);
		return issued;
	});
}

async function activeKey(keyId: string, organizationId: string | undefined, transaction: Transaction): Promise<ApiKey> {
	const apiKey = await ApiKey.findOne({
		where: organizationId ? { id: keyId, organizationId } : { id: keyId },
		transaction,
	});
	if (!apiKey) throw new KeyRuleError('key_not_found', `No API key ${keyId}.`);
	if (apiKey.status !== 'active') throw notActive(apiKey);
	return apiKey;
}

function notActive(apiKey: ApiKey): KeyRuleError {
	return new KeyRuleError('key_not_active', `The key ${apiKey.label} is already ${apiKey.status}.`);
}

/**
 * Moves an active key to its final status, or throws "not active" if another rotation or
 * revocation got there first. The condition on `status` is what serialises them: on
 * PostgreSQL a concurrent UPDATE of the same row waits for the first to commit and then finds
 * the row no longer active (0 rows), on SQLite the IMMEDIATE transaction already runs alone.
 * A read-then-write without it let two rotations both succeed.
 */
async function claimActive(
	apiKey: ApiKey,
	changes: Partial<Pick<ApiKey, 'status' | 'revokedAt' | 'revokedBy'>>,
	transaction: Transaction,
): Promise<void> {
	const [claimed] = await ApiKey.update(changes, { where: { id: apiKey.id, status: 'active' }, transaction });
	if (claimed !== 1) {
		await apiKey.reload({ transaction });
		throw notActive(apiKey);
	}
	apiKey.set(changes);
}

/**
 * Replaces a key: a new secret with the same label, scopes and expiry date; the old one fails from the
 * moment this transaction commits. There is deliberately no grace period.
 */
export async function rotateKey(input: {
	keyId: string;
	organizationId?: string;
	actor: Actor;
	origin?: Origin;
}): Promise<IssuedKey> {
	return writeTransaction(database(), async (transaction) => {
		const old = await activeKey(input.keyId, input.organizationId, transaction);
		// Its replacement would be born expired: a new key (with a new date) is what is needed.
		if (old.isExpired()) {
			throw new KeyRuleError('key_not_active', `The key ${old.label} expired on ${old.expiresAt!.toISOString()}: create a new key instead of rotating it.`);
		}
		await organizationWithApiAccess(old.organizationId, transaction);
		await claimActive(old, { status: 'rotated' }, transaction);
		// The expiry date goes with label and scopes: a rotation changes the secret, not the key's lifetime.
		const issued = await insertKey(old.organizationId, old.label, old.scopeList, old.expiresAt, input.actor, transaction);
		await old.update({ replacedBy: issued.apiKey.id }, { transaction });
		// Its webhook endpoints keep going under the new key (SPEC §19).
		const movedEndpoints = await handEndpointsTo(old.id, issued.apiKey.id, transaction);
		await audit('key.rotated', old, input.actor, input.origin ?? {}, transaction);
		return { ...issued, movedEndpoints };
	});
}

/**
 * Disables a key at once, with no replacement, and the webhook endpoints it owns with it (SPEC
 * §19). Allowed on any plan: stopping a key is always safe.
 */
export async function revokeKey(input: {
	keyId: string;
	organizationId?: string;
	actor: Actor;
	origin?: Origin;
}): Promise<ApiKey & { disabledEndpoints?: OwnedEndpoint[] }> {
	return writeTransaction(database(), async (transaction) => {
		const apiKey = await activeKey(input.keyId, input.organizationId, transaction);
		await claimActive(apiKey, { status: 'revoked', revokedAt: new Date(), revokedBy: actorId(input.actor) }, transaction);
		const disabledEndpoints = await disableEndpointsOfKey(apiKey.id, transaction);
		await audit('key.revoked', apiKey, input.actor, input.origin ?? {}, transaction);
		return Object.assign(apiKey, { disabledEndpoints });
	});
}

/** One key, whatever its status: the operator's `keys show`. */
export async function findKey(keyId: string): Promise<ApiKey> {
	const apiKey = await ApiKey.findByPk(keyId);
	if (!apiKey) throw new KeyRuleError('key_not_found', `No API key ${keyId}.`);
	return apiKey;
}

export function listKeys(organizationId: string): Promise<ApiKey[]> {
	return ApiKey.findAll({ where: { organizationId }, order: [['createdAt', 'DESC'], ['id', 'DESC']] });
}

export function listAuditEvents(organizationId: string, limit = 100): Promise<AuditEvent[]> {
	return AuditEvent.findAll({
		where: { organizationId },
		order: [['createdAt', 'DESC'], ['id', 'DESC']],
		limit,
	});
}

/** Who is calling: the key (and what it may do) and its organization. */
export interface Caller {
	apiKey: { id: string; scopeList: Scope[]; lastUsedAt: Date | null };
	organization: { id: string; plan: Plan };
}

/**
 * Resolves a bearer token to its key and organization, or throws the AuthError that says why
 * not. Reads the database on every call: a cache would let a revoked or rotated key through
 * for as long as it lived, on every instance that held it.
 */
export async function authenticate(token: string): Promise<Caller> {
	if (!isWellFormedKey(token)) throw new AuthError('invalid_api_key');
	const db = database();
	const [row] = await db.rows<KeyLookupRow>(keyLookup(db), [hashKey(token)]);
	if (row === undefined) throw new AuthError('invalid_api_key');
	if (row.status === 'revoked') throw new AuthError('api_key_revoked');
	if (row.status === 'rotated') throw new AuthError('api_key_rotated');
	if (isPastExpiry(row.expiresAt)) throw new AuthError('api_key_expired');
	if (row.organizationId === null || row.plan === null) throw new AuthError('invalid_api_key');
	const apiKey = { id: row.id, scopeList: scopeList(row.scopes), lastUsedAt: row.lastUsedAt === null ? null : new Date(row.lastUsedAt) };
	touchLastUsed(apiKey);
	return { apiKey, organization: { id: row.organizationId, plan: row.plan } };
}

/** At most one write a minute per key, and the condition keeps it so across instances. */
function touchLastUsed(apiKey: Caller['apiKey']): void {
	const now = Date.now();
	if (apiKey.lastUsedAt && now - apiKey.lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
	const staleBefore = new Date(now - LAST_USED_RESOLUTION_MS);
	ApiKey.update(
		{ lastUsedAt: new Date(now) },
		{
			where: {
				id: apiKey.id,
				[Op.or]: [{ lastUsedAt: null }, { lastUsedAt: { [Op.lt]: staleBefore } }],
			},
			silent: true,
		},
	).catch(() => {
		// Best effort: a busy database must not fail the caller's request over a timestamp.
	});
}

/** The key as the CLI's --json and the settings page describe it; never the secret. */
export function keyJson(apiKey: ApiKey, secret?: string) {
	return {
		id: apiKey.id,
		label: apiKey.label,
		scopes: apiKey.scopeList,
		status: apiKey.status,
		masked: apiKey.masked,
		created_at: apiKey.createdAt.toISOString(),
		// Only on keys that have one, so the documented shape of the others stays exactly as it was.
		...(apiKey.expiresAt ? { expires_at: apiKey.expiresAt.toISOString() } : {}),
		...(secret ? { key: secret } : {}),
	};
}
