import type { Transaction } from 'sequelize';

import { randomBase62 } from '../common/ids';
import { RuleError } from '../common/rule-error';
import { writeTransaction } from '../db/write-transaction';
import { Organization } from '../organizations/model';
import { checkWebhookUrl } from './url-policy';
import { ALL_EVENTS } from './event-types';
import { WebhookDelivery, WebhookEndpoint } from './model';

/** SPEC §12: at most this many endpoints per organization. */
export const MAX_ENDPOINTS = 20;

export const SECRET_PREFIX = 'whsec_';

export class TooManyEndpointsError extends RuleError {
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

function sequelizeOf() {
	return WebhookEndpoint.sequelize!;
}

/**
 * Creates an endpoint after checking its URL (outside the transaction: DNS may be slow). The
 * count and the insert run under a lock on the organization's row (SQLite: the one writer), so
 * concurrent creations can never take an organization past MAX_ENDPOINTS.
 */
export async function createEndpoint(input: {
	organizationId: string;
	url: string;
	events: string[];
	description?: string | null;
	allowPrivate: boolean;
}): Promise<CreatedEndpoint> {
	await checkWebhookUrl(input.url, input.allowPrivate);
	const events = input.events.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(input.events)];
	const secret = SECRET_PREFIX + randomBase62(32);
	const endpoint = await writeTransaction(sequelizeOf(), async (transaction) => {
		await Organization.findByPk(input.organizationId, { transaction, lock: transaction.LOCK.UPDATE, attributes: ['id'] });
		const count = await WebhookEndpoint.count({ where: { organizationId: input.organizationId }, transaction });
		if (count >= MAX_ENDPOINTS) throw new TooManyEndpointsError();
		return WebhookEndpoint.create(
			{
				organizationId: input.organizationId,
				url: input.url,
				events: events.join(' '),
				description: input.description ?? null,
				secret,
			},
			{ transaction },
		);
	});
	return { endpoint, secret };
}

export function findEndpoint(organizationId: string | undefined, id: string, transaction?: Transaction): Promise<WebhookEndpoint | null> {
	return WebhookEndpoint.findOne({ where: organizationId ? { id, organizationId } : { id }, transaction });
}

/**
 * Deletes an endpoint and everything still owed to it, in one transaction: from its commit no
 * worker can claim a delivery for it. Returns false when there was no such endpoint.
 */
export async function deleteEndpoint(organizationId: string | undefined, id: string): Promise<WebhookEndpoint | null> {
	return writeTransaction(sequelizeOf(), async (transaction) => {
		const endpoint = await findEndpoint(organizationId, id, transaction);
		if (!endpoint) return null;
		await WebhookDelivery.destroy({ where: { endpointId: endpoint.id }, transaction });
		await endpoint.destroy({ transaction });
		return endpoint;
	});
}

export function listEndpoints(organizationId: string): Promise<WebhookEndpoint[]> {
	return WebhookEndpoint.findAll({ where: { organizationId }, order: [['createdAt', 'ASC'], ['id', 'ASC']] });
}

/** The latest deliveries of the organization's endpoints, newest first, for the settings page. */
export function recentDeliveries(organizationId: string, limit = 50): Promise<WebhookDelivery[]> {
	return WebhookDelivery.findAll({
		where: { organizationId },
		order: [['createdAt', 'DESC'], ['id', 'DESC']],
		limit,
	});
}
