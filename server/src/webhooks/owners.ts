import { Op, type Transaction } from 'sequelize';

import { WebhookEndpoint } from './model';

/**
 * What happens to a key's webhook endpoints when the key changes (SPEC §19). Both run inside the
 * key's own transaction, after the UPDATE that claimed the key row: an endpoint being created by
 * that key at the same moment locks the same row first (webhooks/service.ts), so it either sees
 * the key gone or is committed before this runs and is caught by it.
 */

export interface OwnedEndpoint {
	id: string;
	url: string;
}

/** The key's endpoints that are not deleted, for the confirmation pages. */
export async function endpointsOfKey(apiKeyId: string, transaction?: Transaction): Promise<OwnedEndpoint[]> {
	const rows = await WebhookEndpoint.findAll({
		where: { apiKeyId, status: { [Op.ne]: 'deleted' } },
		attributes: ['id', 'url'],
		order: [['createdAt', 'ASC'], ['id', 'ASC']],
		transaction,
	});
	return rows.map((r) => ({ id: r.id, url: r.url }));
}

/** Revoked: its endpoints stop (disabled, saying why); nothing more is sent to them. */
export async function disableEndpointsOfKey(apiKeyId: string, transaction: Transaction): Promise<OwnedEndpoint[]> {
	const endpoints = await endpointsOfKey(apiKeyId, transaction);
	await WebhookEndpoint.update(
		{ status: 'disabled', disabledReason: 'its API key was revoked' },
		{ where: { apiKeyId, status: 'enabled' }, transaction },
	);
	return endpoints;
}

/** Rotated: its endpoints pass to the new key, with the same scopes, and keep going. */
export async function handEndpointsTo(oldKeyId: string, newKeyId: string, transaction: Transaction): Promise<OwnedEndpoint[]> {
	const endpoints = await endpointsOfKey(oldKeyId, transaction);
	await WebhookEndpoint.update({ apiKeyId: newKeyId }, { where: { apiKeyId: oldKeyId }, transaction });
	return endpoints;
}
