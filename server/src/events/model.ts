import { DataTypes, Model, type ForeignKey, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import type { Organization } from '../organizations/model';
import type { EventType } from './types';

/**
 * An event of the feed (SPEC §11), for reading. Events are written by events/record.ts only,
 * whose SQL makes the id (the model cannot: the id depends on the writing transaction).
 */
export class Event extends Model<InferAttributes<Event>, InferCreationAttributes<Event>> {
	declare id: string;
	declare organizationId: ForeignKey<Organization['id']>;
	declare type: EventType;
	/** The record as the API showed it right after the change, as JSON text. */
	declare data: string;
	declare createdAt: Date;

	static initModel(sequelize: Sequelize): void {
		Event.init(
			{
				id: { type: DataTypes.STRING(40), primaryKey: true },
				organizationId: { type: DataTypes.STRING(40), allowNull: false },
				type: { type: DataTypes.STRING(40), allowNull: false },
				data: { type: DataTypes.TEXT, allowNull: false },
				createdAt: DataTypes.DATE,
			},
			{ sequelize, tableName: 'events', updatedAt: false },
		);
	}
}
