import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type NonAttribute, type Sequelize } from 'sequelize';

import { newId } from '../common/ids';

/** `deleted` is never shown: the row stays (with its delivery log) until retention removes it. */
export type EndpointStatus = 'enabled' | 'disabled' | 'deleted';

/** Where the LMS posts events for one organization (SPEC §12). */
export class WebhookEndpoint extends Model<InferAttributes<WebhookEndpoint>, InferCreationAttributes<WebhookEndpoint>> {
	declare id: CreationOptional<string>;
	declare organizationId: string;
	declare url: string;
	/** Space-separated event types, or `*` for every type. */
	declare events: string;
	declare description: string | null;
	declare status: CreationOptional<EndpointStatus>;
	/** The signing secret, sealed (webhooks/secrets.ts); never the plaintext once sealed at start. */
	declare secret: string;
	declare failingSince: CreationOptional<Date | null>;
	/** The key whose scopes bound what this endpoint receives; null for endpoints older than owners. */
	declare apiKeyId: CreationOptional<string | null>;
	/** Who created it: a user id, `cli`, or the creating key's id (through the API). */
	declare createdBy: CreationOptional<string | null>;
	declare createdIp: CreationOptional<string | null>;
	declare deletedAt: CreationOptional<Date | null>;
	declare disabledReason: CreationOptional<string | null>;
	declare previousSecret: CreationOptional<string | null>;
	declare previousSecretUntil: CreationOptional<Date | null>;
	declare createdAt: CreationOptional<Date>;
	declare updatedAt: CreationOptional<Date>;

	get eventList(): NonAttribute<string[]> {
		return this.events.split(' ').filter(Boolean);
	}

	static initModel(sequelize: Sequelize): void {
		WebhookEndpoint.init(
			{
				id: { type: DataTypes.STRING(40), primaryKey: true, defaultValue: () => newId('whe') },
				organizationId: { type: DataTypes.STRING(40), allowNull: false },
				url: { type: DataTypes.STRING(2048), allowNull: false },
				events: { type: DataTypes.STRING(500), allowNull: false },
				description: { type: DataTypes.STRING(500), allowNull: true },
				status: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'enabled' },
				secret: { type: DataTypes.TEXT, allowNull: false },
				failingSince: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				apiKeyId: { type: DataTypes.STRING(40), allowNull: true, defaultValue: null },
				createdBy: { type: DataTypes.STRING(40), allowNull: true, defaultValue: null },
				createdIp: { type: DataTypes.STRING(64), allowNull: true, defaultValue: null },
				deletedAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				disabledReason: { type: DataTypes.STRING(100), allowNull: true, defaultValue: null },
				previousSecret: { type: DataTypes.TEXT, allowNull: true, defaultValue: null },
				previousSecretUntil: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				createdAt: DataTypes.DATE,
				updatedAt: DataTypes.DATE,
			},
			{ sequelize, tableName: 'webhook_endpoints' },
		);
	}
}

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event owed to one endpoint, and where its attempts stand. */
export class WebhookDelivery extends Model<InferAttributes<WebhookDelivery>, InferCreationAttributes<WebhookDelivery>> {
	declare id: CreationOptional<string>;
	declare organizationId: string;
	declare endpointId: string;
	declare eventId: string;
	declare eventType: string;
	declare status: CreationOptional<DeliveryStatus>;
	declare attempts: CreationOptional<number>;
	declare nextAttemptAt: Date;
	declare leaseUntil: CreationOptional<Date | null>;
	declare leaseToken: CreationOptional<string | null>;
	declare lastStatusCode: CreationOptional<number | null>;
	declare lastError: CreationOptional<string | null>;
	declare lastAttemptAt: CreationOptional<Date | null>;
	declare deliveredAt: CreationOptional<Date | null>;
	/** The last attempt's request, JSON of webhooks/exchange.ts's SentRequest; null before one was sent. */
	declare lastRequest: CreationOptional<string | null>;
	/** The receiver's answer to it, cut to a few KB; null when it did not answer. */
	declare lastResponseBody: CreationOptional<string | null>;
	declare createdAt: CreationOptional<Date>;
	declare updatedAt: CreationOptional<Date>;

	static initModel(sequelize: Sequelize): void {
		WebhookDelivery.init(
			{
				id: { type: DataTypes.STRING(40), primaryKey: true, defaultValue: () => newId('whd') },
				organizationId: { type: DataTypes.STRING(40), allowNull: false },
				endpointId: { type: DataTypes.STRING(40), allowNull: false },
				eventId: { type: DataTypes.STRING(40), allowNull: false },
				eventType: { type: DataTypes.STRING(60), allowNull: false },
				status: { type: DataTypes.STRING(20), allowNull: false, defaultValue: 'pending' },
				attempts: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
				nextAttemptAt: { type: DataTypes.DATE, allowNull: false },
				leaseUntil: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				leaseToken: { type: DataTypes.STRING(40), allowNull: true, defaultValue: null },
				lastStatusCode: { type: DataTypes.INTEGER, allowNull: true, defaultValue: null },
				lastError: { type: DataTypes.STRING(300), allowNull: true, defaultValue: null },
				lastAttemptAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				deliveredAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				lastRequest: { type: DataTypes.TEXT, allowNull: true, defaultValue: null },
				lastResponseBody: { type: DataTypes.TEXT, allowNull: true, defaultValue: null },
				createdAt: DataTypes.DATE,
				updatedAt: DataTypes.DATE,
			},
			{ sequelize, tableName: 'webhook_deliveries' },
		);
	}
}

/**
 * One send of a delivery (SPEC §22: every attempt kept and listed), written with the outcome it
 * led to. `responseBody` is null for destinations that are not public (private, loopback,
 * allow-listed): of those only the status and the size of the answer are kept.
 */
export class WebhookDeliveryAttempt extends Model<InferAttributes<WebhookDeliveryAttempt>, InferCreationAttributes<WebhookDeliveryAttempt>> {
	declare id: CreationOptional<number>;
	declare deliveryId: string;
	/** The delivery's attempt count when this send was claimed. */
	declare attempt: number;
	declare startedAt: Date;
	declare durationMs: number;
	declare statusCode: number | null;
	declare error: string | null;
	/** JSON of the headers sent; null when nothing was sent (the URL was refused). */
	declare requestHeaders: string | null;
	declare responseBody: string | null;
	declare responseSize: number | null;

	static initModel(sequelize: Sequelize): void {
		WebhookDeliveryAttempt.init(
			{
				id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
				deliveryId: { type: DataTypes.STRING(40), allowNull: false },
				attempt: { type: DataTypes.INTEGER, allowNull: false },
				startedAt: { type: DataTypes.DATE, allowNull: false },
				durationMs: { type: DataTypes.INTEGER, allowNull: false },
				statusCode: { type: DataTypes.INTEGER, allowNull: true },
				error: { type: DataTypes.STRING(300), allowNull: true },
				requestHeaders: { type: DataTypes.TEXT, allowNull: true },
				responseBody: { type: DataTypes.TEXT, allowNull: true },
				responseSize: { type: DataTypes.INTEGER, allowNull: true },
			},
			{ sequelize, tableName: 'webhook_delivery_attempts', timestamps: false },
		);
	}
}
