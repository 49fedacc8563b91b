import { Op } from 'sequelize';

import { writeTransaction } from '../db/write-transaction';
import { WebhookDelivery } from './model';

const DAY_MS = 24 * 3_600_000;
const BATCH = 500;

/**
 * Removes finished deliveries (delivered or failed) older than the event retention: their
 * events are gone too, and the settings page shows only the latest. Pending ones stay whatever
 * their age (the retry schedule ends within two days anyway). Returns how many it removed.
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
		if (rows.length === 0) return removed;
		await writeTransaction(WebhookDelivery.sequelize!, (transaction) =>
			WebhookDelivery.destroy({ where: { id: rows.map((r) => r.id) }, transaction }),
		);
		removed += rows.length;
	}
}
