import type { Actor, Origin } from '../api-keys/audit';
import { ApiKey } from '../api-keys/model';
import { RuleError } from '../common/rule-error';
import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { WebhookEndpoint } from './model';
import { auditEndpoint, findEndpoint } from './service';

class EndpointKeyInactiveError extends RuleError {
	constructor(endpointId: string) {
		super(
			'endpoint_key_inactive',
			"This endpoint's API key was revoked, so it cannot be enabled again: add a new endpoint (or let n8n create one by publishing its workflow again).",
			{ endpointId },
		);
		this.name = 'EndpointKeyInactiveError';
	}
}

/**
 * Disables or enables an endpoint by hand (Settings → Webhooks), audited as webhook.disabled /
 * webhook.enabled. Disabled, nothing is sent to it: the worker fails what is owed ("endpoint
 * disabled") and no new delivery is written for it. Enabled again, it starts afresh: the run of
 * failures that may have disabled it is forgotten, so three more days of failures are needed to
 * disable it again. An endpoint whose owner key is no longer active stays disabled (SPEC §19: a
 * revoked key's endpoints stop). Unchanged status: nothing written. Undefined when there is no
 * such endpoint.
 */
export async function setEndpointStatus(input: {
	organizationId: string;
	id: string;
	status: 'enabled' | 'disabled';
	actor: Actor;
	origin?: Origin;
}): Promise<WebhookEndpoint | undefined> {
	return writeTransaction(database(), async (transaction) => {
		const found = await findEndpoint(input.organizationId, input.id, transaction);
		if (!found) return undefined;
		// The owner key's row is locked first, in the order a revocation takes them (key, then its
		// endpoints): a revocation either committed before (the key is seen revoked: refused) or
		// waits for this enable to commit and then disables the endpoint with the others. Reading
		// the key without the lock let an enable land just after the revocation's UPDATE of the
		// endpoints (which skipped it, still disabled) and leave it enabled under a revoked key.
		if (input.status === 'enabled' && found.apiKeyId !== null) {
			const key = await ApiKey.findByPk(found.apiKeyId, { attributes: ['id', 'status'], transaction, lock: transaction.LOCK.UPDATE });
			if (key?.status !== 'active') throw new EndpointKeyInactiveError(found.id);
		}
		const endpoint = (await WebhookEndpoint.findByPk(found.id, { transaction, lock: transaction.LOCK.UPDATE }))!;
		if (endpoint.status === input.status) return endpoint;
		const changes =
			input.status === 'enabled'
				? { status: input.status, disabledReason: null, failingSince: null }
				: { status: input.status, disabledReason: 'disabled on Settings → Webhooks' };
		await endpoint.update(changes, { transaction });
		await auditEndpoint(input.status === 'enabled' ? 'webhook.enabled' : 'webhook.disabled', endpoint, input, transaction);
		return endpoint;
	});
}
