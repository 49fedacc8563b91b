import { Op, type Transaction } from 'sequelize';

import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { Organization } from '../organizations/model';
import { hasApiAccess } from '../organizations/plan';
import { disableEndpointsOfKey, handEndpointsTo, type OwnedEndpoint } from '../webhooks/owners';
import { actorId, writeAudit, type Actor, type Origin } from './audit';
import { KeyRuleError } from './errors';
import { generateKey, hashKey, maskKey } from './key-format';
import { ApiKey, type AuditAction, type Scope } from './model';
import { normaliseLabel, normaliseScopes, parseExpiry, parseGraceHours } from './rules';

/**
 * The one place for a key's life: created, rotated, revoked. The settings page and the CLI both
 * call this module, so "Enterprise only, label required, at least one known scope, audit
 * everything" holds whichever door a Super Admin or an operator comes through.
 */

export interface IssuedKey {
	apiKey: ApiKey;
	/** The full secret: hand it to the person once, never store or log it. */
	secret: string;
	/** After a rotation: the webhook endpoints that passed from the old key to this one. */
	movedEndpoints?: OwnedEndpoint[];
	/** After a rotation: until when the old key keeps working (`expire_old_after`), null when it stopped at once. */
	previousUntil?: Date | null;
}

async function organizationWithApiAccess(organizationId: string, transaction?: Transaction): Promise<Organization> {
	const org = await Organization.findByPk(organizationId, { transaction });
	if (!org) throw new KeyRuleError('organization_not_found', 'No such organization.');
	if (!hasApiAccess(org.plan)) {
		throw new KeyRuleError('plan_required', 'API keys are available on the Enterprise plan only. Upgrade the organization first.');
	}
	return org;
}

function audit(action: AuditAction, apiKey: ApiKey, actor: Actor, origin: Origin, transaction: Transaction): Promise<void> {
	return writeAudit({ organizationId: apiKey.organizationId, action, apiKeyId: apiKey.id }, actor, origin, transaction);
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

async function workingKey(keyId: string, organizationId: string | undefined, transaction: Transaction): Promise<ApiKey> {
	const apiKey = await ApiKey.findOne({
		where: organizationId ? { id: keyId, organizationId } : { id: keyId },
		transaction,
	});
	if (!apiKey) throw new KeyRuleError('key_not_found', `No API key ${keyId}.`);
	// A rotated key still in its grace time works: it may still be revoked (not rotated again).
	if (apiKey.status !== 'active' && !apiKey.inGrace()) throw notActive(apiKey);
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
	changes: Partial<Pick<ApiKey, 'status' | 'revokedAt' | 'revokedBy' | 'graceUntil'>>,
	transaction: Transaction,
): Promise<void> {
	// A rotated key in its grace time still works, so revoking it must be able to claim it too.
	const stillWorking =
		apiKey.status === 'rotated' ? { status: 'rotated', graceUntil: { [Op.gt]: new Date() } } : { status: 'active' };
	const [claimed] = await ApiKey.update(changes, { where: { id: apiKey.id, ...stillWorking }, transaction });
	if (claimed !== 1) {
		await apiKey.reload({ transaction });
		throw notActive(apiKey);
	}
	apiKey.set(changes);
}

/** Which key (of this organization; of any, for the CLI), changed by whom and from where. */
export interface KeyChange {
	keyId: string;
	organizationId?: string;
	actor: Actor;
	origin?: Origin;
}

/**
 * Replaces a key: a new secret with the same label, scopes and expiry date. The old one fails from
 * the moment this transaction commits, or, with `expireOldAfter` hours (0–168, SPEC §22), keeps
 * working until then so that integrations can switch without an outage.
 */
export async function rotateKey(input: KeyChange & { expireOldAfter?: unknown }): Promise<IssuedKey> {
	const graceHours = parseGraceHours(input.expireOldAfter);
	return writeTransaction(database(), async (transaction) => {
		const old = await workingKey(input.keyId, input.organizationId, transaction);
		if (old.status !== 'active') throw notActive(old);
		// Its replacement would be born expired: a new key (with a new date) is what is needed.
		if (old.isExpired()) {
			throw new KeyRuleError('key_not_active', `The key ${old.label} expired on ${old.expiresAt!.toISOString()}: create a new key instead of rotating it.`);
		}
		await organizationWithApiAccess(old.organizationId, transaction);
		const graceUntil = graceHours > 0 ? new Date(Date.now() + graceHours * 3_600_000) : null;
		await claimActive(old, { status: 'rotated', graceUntil }, transaction);
		// The expiry date goes with label and scopes: a rotation changes the secret, not the key's lifetime.
		const issued = await insertKey(old.organizationId, old.label, old.scopeList, old.expiresAt, input.actor, transaction);
		await old.update({ replacedBy: issued.apiKey.id }, { transaction });
		// Its webhook endpoints keep going under the new key (SPEC §19).
		const movedEndpoints = await handEndpointsTo(old.id, issued.apiKey.id, transaction);
		await audit('key.rotated', old, input.actor, input.origin ?? {}, transaction);
		return { ...issued, movedEndpoints, previousUntil: graceUntil };
	});
}

/**
 * Disables a key at once, with no replacement, and the webhook endpoints it owns with it (SPEC
 * §19). Allowed on any plan: stopping a key is always safe.
 */
export async function revokeKey(input: KeyChange): Promise<ApiKey & { disabledEndpoints?: OwnedEndpoint[] }> {
	return writeTransaction(database(), async (transaction) => {
		const apiKey = await workingKey(input.keyId, input.organizationId, transaction);
		await claimActive(apiKey, { status: 'revoked', revokedAt: new Date(), revokedBy: actorId(input.actor), graceUntil: null }, transaction);
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
