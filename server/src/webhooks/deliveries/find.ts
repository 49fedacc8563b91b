import { attemptsOf } from '../attempts';
import { WebhookDelivery, type WebhookDeliveryAttempt, type WebhookEndpoint } from '../model';
import { findEndpoint, type EndpointsOf } from '../service';

/**
 * One delivery of an endpoint a door reaches (webhooks/service.ts EndpointsOf; not deleted), with
 * its attempts oldest first: what the API's …/attempts and Settings → Webhooks' delivery page
 * read. Undefined when that endpoint has no such delivery.
 */
export async function findDelivery(
	of: EndpointsOf,
	endpointId: string,
	deliveryId: string,
): Promise<{ endpoint: WebhookEndpoint; delivery: WebhookDelivery; attempts: WebhookDeliveryAttempt[] } | undefined> {
	const endpoint = await findEndpoint(of, endpointId);
	const delivery = endpoint && (await WebhookDelivery.findOne({ where: { id: deliveryId, endpointId: endpoint.id, organizationId: endpoint.organizationId } }));
	if (!endpoint || !delivery) return undefined;
	return { endpoint, delivery, attempts: await attemptsOf(delivery.id) };
}
