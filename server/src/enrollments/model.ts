import { DataTypes, Model, type CreationOptional, type ForeignKey, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import { newId } from '../common/ids';
import type { Course } from '../courses/model';
import type { Organization } from '../organizations/model';
import type { User } from '../users/model';

export const ENROLLMENT_STATUSES = ['active', 'completed', 'withdrawn', 'expired'] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];

export class Enrollment extends Model<InferAttributes<Enrollment>, InferCreationAttributes<Enrollment>> {
	declare id: CreationOptional<string>;
	declare organizationId: ForeignKey<Organization['id']>;
	declare studentId: ForeignKey<User['id']>;
	declare courseId: ForeignKey<Course['id']>;
	declare status: CreationOptional<EnrollmentStatus>;
	declare progressPercent: CreationOptional<number>;
	declare enrolledAt: CreationOptional<Date>;
	declare completedAt: Date | null;
	/** When it must be completed; null: no deadline (SPEC §17). */
	declare dueAt: CreationOptional<Date | null>;
	/** When enrollment.overdue was recorded for this deadline; null while owed (0014 migration). */
	declare overdueNotifiedAt: CreationOptional<Date | null>;
	/** The assignment that made it (SPEC §20); null for a direct enrollment. */
	declare assignmentId: CreationOptional<string | null>;
	declare createdAt: CreationOptional<Date>;
	declare updatedAt: CreationOptional<Date>;

	static initModel(sequelize: Sequelize): void {
		Enrollment.init(
			{
				id: { type: DataTypes.STRING(40), primaryKey: true, defaultValue: () => newId('enr') },
				organizationId: { type: DataTypes.STRING(40), allowNull: false },
				studentId: { type: DataTypes.STRING(40), allowNull: false },
				courseId: { type: DataTypes.STRING(40), allowNull: false },
				status: {
					type: DataTypes.STRING(20),
					allowNull: false,
					defaultValue: 'active',
					validate: { isIn: [ENROLLMENT_STATUSES] },
				},
				progressPercent: {
					type: DataTypes.INTEGER,
					allowNull: false,
					defaultValue: 0,
					validate: { min: 0, max: 100 },
				},
				enrolledAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
				completedAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				dueAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				overdueNotifiedAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				assignmentId: { type: DataTypes.STRING(40), allowNull: true, defaultValue: null },
				createdAt: DataTypes.DATE,
				updatedAt: DataTypes.DATE,
			},
			{ sequelize, tableName: 'enrollments' },
		);
	}
}
