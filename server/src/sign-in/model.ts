import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import { newId } from '../common/ids';

/**
 * `pending` while the password is checked (it counts against the limits, so that concurrent
 * guesses cannot all slip in under them), then `failed` or `succeeded`; `throttled` when the
 * limits refused it before any check.
 */
const SIGN_IN_OUTCOMES = ['pending', 'failed', 'succeeded', 'throttled'] as const;
export type SignInOutcome = (typeof SIGN_IN_OUTCOMES)[number];

/** One sign-in attempt: the audit log of sign-ins and what the throttle counts. Never the password. */
export class SignInAttempt extends Model<InferAttributes<SignInAttempt>, InferCreationAttributes<SignInAttempt>> {
	declare id: CreationOptional<string>;
	/** The e-mail as attempted, lower-cased, control characters replaced: the per-account key. */
	declare email: string;
	declare ip: string;
	/** What the per-IP limit counts: the IPv4 address, or the IPv6 /56 prefix. */
	declare client: string;
	/** The trusted-device cookie's nonce the attempt came with (sign-in/device-cookie.ts), or null. */
	declare device: CreationOptional<string | null>;
	declare outcome: SignInOutcome;
	declare userId: CreationOptional<string | null>;
	declare organizationId: CreationOptional<string | null>;
	declare userAgent: CreationOptional<string | null>;
	declare createdAt: CreationOptional<Date>;
	declare updatedAt: CreationOptional<Date>;

	static initModel(sequelize: Sequelize): void {
		SignInAttempt.init(
			{
				id: { type: DataTypes.STRING(40), primaryKey: true, defaultValue: () => newId('sgn') },
				email: { type: DataTypes.STRING(254), allowNull: false },
				ip: { type: DataTypes.STRING(64), allowNull: false },
				client: { type: DataTypes.STRING(64), allowNull: false },
				device: { type: DataTypes.STRING(40), allowNull: true, defaultValue: null },
				outcome: { type: DataTypes.STRING(20), allowNull: false, validate: { isIn: [SIGN_IN_OUTCOMES] } },
				userId: { type: DataTypes.STRING(40), allowNull: true, defaultValue: null },
				organizationId: { type: DataTypes.STRING(40), allowNull: true, defaultValue: null },
				userAgent: { type: DataTypes.STRING(300), allowNull: true, defaultValue: null },
				createdAt: DataTypes.DATE,
				updatedAt: DataTypes.DATE,
			},
			{ sequelize, tableName: 'sign_in_attempts' },
		);
	}
}
