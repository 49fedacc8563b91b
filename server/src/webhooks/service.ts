import { Op, type Transaction } from 'sequelize';

import { ApiKey, type AuditAction } from '../api-keys/model';
import { writeAudit, type Actor, type Origin } from '../api-keys/audit';
import { AuthError } from '../api-keys/errors';
import { newId, randomBase62 } from '../common/ids';
import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { Organization } from '../organizations/model';
import { checkWebhookUrl, type UrlPolicy } from './url-policy';
import { ALL_EVENTS } from './event-types';
import { sealSecret } from './secrets';
import type { WebhookConfig } from '../config';
import { WebhookDelivery, WebhookEndpoint } from './model';

/** SPEC §12: at most this many endpoints per organization. */
export const MAX_ENDPOINTS = 20;

export const SECRET_PREFIX = 'whsec_';

class TooManyEndpointsError extends RuleError {
	constructor() {
		super('too_many_endpoints', `An organization can have at most ${MAX_ENDPOINTS} webhook endpoints. Delete one you no longer use first.`);
		this.name = 'TooManyEndpointsError';
	}
}

export interface CreatedEndpoint {
	endpoint: WebhookEndpoint;
	/** The signing secret: handed to the caller once, never shown again. */
	secret: string;
}

/**
 * Creates an endpoint after checking its URL (outside the transaction: DNS may be slow). The
 * count and the insert run under a lock on the organization's row (SQLite: the one writer), so
 * concurrent creations can never take an organization past MAX_ENDPOINTS. The owner key's row
 * is locked and must still be active: a revocation of that key either commits first (the key is
 * refused here) or waits for this insert and then disables the new endpoint with the others.
 * The URL is stored as parsed (`new URL(raw).href`), the form every later check reads.
 * Added on Settings → Webhooks, an endpoint has no owner key (`apiKeyId` null): it belongs to the
 * organization, is bounded by what it subscribes to (a Super Admin sees every type), and no key's
 * revocation stops it.
 */
export async function createEndpoint(input: {
	organizationId: string;
	url: string;
	/** Already checked against the key's scopes by the caller (webhooks/create.ts). */
	events: string[];
	description?: string | null;
	/** The key that owns the endpoint: its scopes bound what is sent. Null from the settings page. */
	apiKeyId: string | null;
	actor: Actor;
	origin?: Origin;
	/** The URL policy and the sealing secrets (the server's webhook configuration). */
	config: UrlPolicy & Pick<WebhookConfig, 'sealingSecrets'>;
}): Promise<CreatedEndpoint> {
	const { url } = await checkWebhookUrl(input.url, input.config);
	const events = input.events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(input.events)];
	const secret = SECRET_PREFIX + randomBase62(32);
	// Stored sealed, bound to the endpoint's id (webhooks/secrets.ts): never in the clear.
	const id = newId('whe');
	const sealed = sealSecret(input.config, id, secret);
	const origin = input.origin ?? {};
	const endpoint = await writeTransaction(database(), async (transaction) => {
		if (input.apiKeyId !== null) {
			const owner = await ApiKey.findOne({
				where: { id: input.apiKeyId, organizationId: input.organizationId },
				transaction,
				lock: transaction.LOCK.UPDATE,
				attributes: ['id', 'status'],
			});
			if (!owner || owner.status !== 'active') throw new AuthError(owner?.status === 'rotated' ? 'api_key_rotated' : 'api_key_revoked');
		}
		await Organization.findByPk(input.organizationId, { transaction, lock: transaction.LOCK.UPDATE, attributes: ['id'] });
		const count = await WebhookEndpoint.count({
			where: { organizationId: input.organizationId, status: { [Op.ne]: 'deleted' } },
			transaction,
		});
		if (count >= MAX_ENDPOINTS) throw new TooManyEndpointsError();
		const created = await WebhookEndpoint.create(
			{
				id,
				organizationId: input.organizationId,
				url: url.href,
				events: events.join(' '),
				description: input.description ?? null,
				secret: sealed,
				apiKeyId: input.apiKeyId,
				createdBy: input.actor.kind === 'cli' || input.actor.kind === 'system' ? input.actor.kind : input.actor.id,
				createdIp: origin.ip ?? null,
			},
			{ transaction },
		);
		await auditEndpoint('webhook.created', created, { actor: input.actor, origin }, transaction);
		return created;
	});
	return { endpoint, secret };
}

/** The audit log's line for a change to an endpoint, under the key that owns it ('' for none). */
export function auditEndpoint(action: AuditAction, endpoint: WebhookEndpoint, by: { actor: Actor; origin?: Origin }, transaction: Transaction): Promise<void> {
	return writeAudit(
		{ organizationId: endpoint.organizationId, action, apiKeyId: endpoint.apiKeyId ?? '', webhookEndpointId: endpoint.id },
		by.actor,
		by.origin ?? {},
		transaction,
	);
}

/**
 * Which endpoints a door reaches (SPEC §22): an API key only those it owns (`ownerKeyId`; an
 * endpoint made on Settings → Webhooks is owned by none, so no key reaches it); Settings → Webhooks
 * every one of its organization (an organization id); the CLI every one (undefined).
 */
export type EndpointsOf = string | undefined | { organizationId: string; ownerKeyId: string };

/** The endpoints an API caller reaches: its organization's that its key owns. */
export function ownedBy(caller: { apiKey: { id: string }; organization: { id: string } }): EndpointsOf {
	return { organizationId: caller.organization.id, ownerKeyId: caller.apiKey.id };
}

/** The condition of EndpointsOf on webhook_endpoints. */
function endpointsWhere(of: EndpointsOf): { organizationId?: string; apiKeyId?: string } {
	if (of === undefined) return {};
	if (typeof of === 'string') return { organizationId: of };
	return { organizationId: of.organizationId, apiKeyId: of.ownerKeyId };
}

/** EndpointsOf from a door's input: its organization (none: the CLI), and its key through the API. */
export function scopeOf(input: { organizationId: string | undefined; ownerKeyId?: string }): EndpointsOf {
	return input.ownerKeyId && input.organizationId ? { organizationId: input.organizationId, ownerKeyId: input.ownerKeyId } : input.organizationId;
}

/** An endpoint that is not deleted, of those `of` reaches (webhooks/service.ts EndpointsOf). */
export function findEndpoint(of: EndpointsOf, id: string, transaction?: Transaction): Promise<WebhookEndpoint | null> {
	return WebhookEndpoint.findOne({ where: { id, status: { [Op.ne]: 'deleted' }, ...endpointsWhere(of) }, transaction });
}

/**
 * Deletes an endpoint, from any door (API, settings page, CLI), and audits it. From the commit no
 * worker sends to it: what was still owed is marked failed in the same transaction, and a send
 * already under way finds the endpoint deleted. The row and its delivery log stay, hidden,
 * until retention removes them (webhooks/retention.ts). Returns null when there was no such endpoint.
 */
export async function deleteEndpoint(input: {
	organizationId: string | undefined;
	/** Through the API: the calling key, which reaches only its own endpoints. */
	ownerKeyId?: string;
	id: string;
	actor: Actor;
	origin?: Origin;
}): Promise<WebhookEndpoint | null> {
	return writeTransaction(database(), async (transaction) => {
		const endpoint = await findEndpoint(scopeOf(input), input.id, transaction);
		if (!endpoint) return null;
		const [claimed] = await WebhookEndpoint.update(
			{ status: 'deleted', deletedAt: new Date() },
			{ where: { id: endpoint.id, status: { [Op.ne]: 'deleted' } }, transaction },
		);
		// A concurrent delete got there first: one of them answers "deleted", the other 404.
		if (claimed !== 1) return null;
		await WebhookDelivery.update(
			{ status: 'failed', lastError: 'endpoint deleted' },
			{ where: { endpointId: endpoint.id, status: 'pending' }, transaction },
		);
		await auditEndpoint('webhook.deleted', endpoint, input, transaction);
		return endpoint;
	});
}

export function listEndpoints(organizationId: string): Promise<WebhookEndpoint[]> {
	return WebhookEndpoint.findAll({
		where: { organizationId, status: { [Op.ne]: 'deleted' } },
		order: [['createdAt', 'ASC'], ['id', 'ASC']],
	});
}

