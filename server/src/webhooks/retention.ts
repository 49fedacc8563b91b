import { Op } from 'sequelize';

import { database } from '../db';
import { writeTransaction } from '../db/write-transaction';
import { WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint } from './model';

const DAY_MS = 24 * 3_600_000;
const BATCH = 500;

/**
 * Removes finished deliveries (delivered or failed) older than the event retention: their
 * events are gone too, and the settings page shows only the latest. Pending ones stay whatever
 * their age (the retry schedule ends within two days anyway). Their attempts go with them.
 * Returns how many it removed.
 */
export async function pruneDeliveries(retentionDays: number, now = new Date()): Promise<number> {
	const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
	let removed = 0;
	for (;;) {
		const rows = await WebhookDelivery.findAll({
			where: { status: { [Op.ne]: 'pending' }, createdAt: { [Op.lt]: cutoff } },
			attributes: ['id'],
			limit: BATCH,
		});
		if (rows.length === 0) break;
		const ids = rows.map((r) => r.id);
		await writeTransaction(database(), async (transaction) => {
			await WebhookDeliveryAttempt.destroy({ where: { deliveryId: ids }, transaction });
			await WebhookDelivery.destroy({ where: { id: ids }, transaction });
		});
		removed += rows.length;
	}
	await pruneDeletedEndpoints(cutoff);
	return removed;
}

/**
 * Deleted endpoints are kept while their delivery log is (SPEC §19: deleting an endpoint keeps
 * its deliveries until retention removes them); once deleted before the cutoff and left with no
 * delivery, the row goes too.
 */
async function pruneDeletedEndpoints(cutoff: Date): Promise<void> {
	const gone = await WebhookEndpoint.findAll({
		where: { status: 'deleted', deletedAt: { [Op.lt]: cutoff } },
		attributes: ['id'],
		limit: BATCH,
	});
	for (const { id } of gone) {
		await writeTransaction(database(), async (transaction) => {
			if ((await WebhookDelivery.count({ where: { endpointId: id }, transaction })) === 0) await WebhookEndpoint.destroy({ where: { id }, transaction });
		});
	}
}
