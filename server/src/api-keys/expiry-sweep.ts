import { Op } from 'sequelize';

import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { ApiKey } from './model';
import { writeAudit } from './audit';

/** How long before its expiry date a key is announced, on the keys page and in the audit log. */
export const EXPIRY_REMINDER_DAYS = 7;
const REMINDER_MS = EXPIRY_REMINDER_DAYS * 86_400_000;

/** The keys page's reminder: an active key that expires within the reminder window, or has expired. */
export function expiresSoon(apiKey: ApiKey, now = new Date()): boolean {
	return apiKey.status === 'active' && apiKey.expiresAt !== null && apiKey.expiresAt.getTime() - now.getTime() <= REMINDER_MS;
}

/**
 * Writes the audit log's "expires within 7 days" and "expired" entries of active keys that are
 * owed one; returns how many. Every instance runs it (and the keys page before it shows the log),
 * so each entry is claimed in the database: a conditional UPDATE of the key's mark, in the
 * entry's transaction. On PostgreSQL a second claimant waits for the first to commit and then
 * matches no row; SQLite's write transactions take turns. Either way one entry per key.
 */
export async function sweepKeyExpiry(now = new Date()): Promise<number> {
	const owed = await ApiKey.findAll({
		where: {
			status: 'active',
			expiresAt: { [Op.ne]: null, [Op.lte]: new Date(now.getTime() + REMINDER_MS) },
			[Op.or]: [{ expiryRemindedAt: null }, { expiresAt: { [Op.lte]: now }, expiryRecordedAt: null }],
		},
		attributes: ['id', 'organizationId', 'expiresAt', 'expiryRemindedAt'],
	});
	let written = 0;
	for (const apiKey of owed) {
		const expired = apiKey.isExpired(now);
		const wrote = await writeTransaction(database(), async (transaction) => {
			// A key that expired before any pass saw it gets the "expired" entry only.
			const [claimed] = expired
				? await ApiKey.update(
						{ expiryRecordedAt: now, expiryRemindedAt: apiKey.expiryRemindedAt ?? now },
						{ where: { id: apiKey.id, status: 'active', expiryRecordedAt: null }, transaction, silent: true },
					)
				: await ApiKey.update({ expiryRemindedAt: now }, { where: { id: apiKey.id, status: 'active', expiryRemindedAt: null }, transaction, silent: true });
			if (claimed !== 1) return false;
			await writeAudit(
				{ organizationId: apiKey.organizationId, action: expired ? 'key.expired' : 'key.expiring', apiKeyId: apiKey.id },
				{ kind: 'system' },
				{},
				transaction,
			);
			return true;
		});
		if (wrote) written++;
	}
	return written;
}
