import { iso } from '../common/time';
import type { EndpointRow } from './queries';

/** An endpoint as the API shows it: never the secret (that is added once, by create). */
export function serializeEndpoint(endpoint: EndpointRow): Record<string, unknown> {
	return {
		id: endpoint.id,
		url: endpoint.url,
		events: endpoint.events.split(' ').filter(Boolean),
		description: endpoint.description,
		status: endpoint.status,
		created_at: iso(endpoint.createdAt),
	};
}
