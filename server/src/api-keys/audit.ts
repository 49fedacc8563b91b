import type { Transaction } from 'sequelize';

import { AuditEvent, type AuditAction } from './model';

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

/**
 * One entry of the audit log the keys page shows, in the transaction of the change it records.
 * Webhook endpoints' creation and deletion are written here too (`apiKeyId`: the endpoint's key,
 * empty for an endpoint older than owner keys), and every password change (`apiKeyId` empty,
 * `userId` the account).
 */
export async function writeAudit(
	entry: { organizationId: string; action: AuditAction; apiKeyId: string; webhookEndpointId?: string; userId?: string },
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
			userId: entry.userId ?? null,
			actor: actorId(actor),
			actorName: actor.kind === 'cli' || actor.kind === 'system' ? actor.kind : actor.name,
			ip: origin.ip ?? null,
			userAgent: origin.userAgent?.slice(0, 300) ?? null,
		},
		{ transaction },
	);
}

export function actorId(actor: Actor): string {
	return actor.kind === 'cli' || actor.kind === 'system' ? actor.kind : actor.id;
}

export function listAuditEvents(organizationId: string, limit = 100): Promise<AuditEvent[]> {
	return AuditEvent.findAll({
		where: { organizationId },
		order: [['createdAt', 'DESC'], ['id', 'DESC']],
		limit,
	});
}
