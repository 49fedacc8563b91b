import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * The sign-in throttle's two keys besides the account (issue 27, finding 7):
 * - `client`: the IP as the throttle counts it: an IPv4 address, or the IPv6 /56 prefix (one
 *   subscriber holds a whole prefix, as the request limiter already assumes). `ip` keeps the
 *   full address for the audit log. Rows written before this are keyed by their address.
 * - `device`: the nonce of the trusted-device cookie the attempt came with, or null: such an
 *   attempt counts against its device only, never against the account or the client.
 */
export async function up({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.addColumn('sign_in_attempts', 'client', { type: DataTypes.STRING(64), allowNull: true });
	await qi.addColumn('sign_in_attempts', 'device', { type: DataTypes.STRING(40), allowNull: true });
	await qi.sequelize.query('UPDATE sign_in_attempts SET client = ip');
	await qi.addIndex('sign_in_attempts', ['client', 'created_at'], { name: 'sign_in_attempts_client_time' });
	await qi.addIndex('sign_in_attempts', ['device', 'created_at'], { name: 'sign_in_attempts_device_time' });
	await qi.removeIndex('sign_in_attempts', 'sign_in_attempts_ip_time');
}

export async function down({ context: qi }: { context: QueryInterface }): Promise<void> {
	await qi.addIndex('sign_in_attempts', ['ip', 'created_at'], { name: 'sign_in_attempts_ip_time' });
	await qi.removeIndex('sign_in_attempts', 'sign_in_attempts_device_time');
	await qi.removeIndex('sign_in_attempts', 'sign_in_attempts_client_time');
	await qi.removeColumn('sign_in_attempts', 'device');
	await qi.removeColumn('sign_in_attempts', 'client');
}
