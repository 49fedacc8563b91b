import { DataTypes, Model, type CreationOptional, type ForeignKey, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

import { newId, randomBase62 } from '../common/ids';
import type { Course } from '../courses/model';
import type { Enrollment } from '../enrollments/model';
import type { Organization } from '../organizations/model';
import type { User } from '../users/model';

/** Codes are 12 upper-case letters and digits; the column holds up to 20. */
export const VERIFICATION_CODE_MAX_LENGTH = 20;
export const VERIFICATION_CODE_RULE = `1 to ${VERIFICATION_CODE_MAX_LENGTH} letters and digits, as printed on the certificate (e.g. 7HD3PLX9QA2V)`;

export class Certificate extends Model<InferAttributes<Certificate>, InferCreationAttributes<Certificate>> {
	declare id: CreationOptional<string>;
	declare organizationId: ForeignKey<Organization['id']>;
	declare studentId: ForeignKey<User['id']>;
	declare courseId: ForeignKey<Course['id']>;
	declare enrollmentId: ForeignKey<Enrollment['id']>;
	declare issuedAt: Date;
	declare expiresAt: Date | null;
	declare verificationCode: CreationOptional<string>;
	declare createdAt: CreationOptional<Date>;
	declare updatedAt: CreationOptional<Date>;

	static initModel(sequelize: Sequelize): void {
		Certificate.init(
			{
				id: { type: DataTypes.STRING(40), primaryKey: true, defaultValue: () => newId('cert') },
				organizationId: { type: DataTypes.STRING(40), allowNull: false },
				studentId: { type: DataTypes.STRING(40), allowNull: false },
				courseId: { type: DataTypes.STRING(40), allowNull: false },
				enrollmentId: { type: DataTypes.STRING(40), allowNull: false },
				issuedAt: { type: DataTypes.DATE, allowNull: false },
				expiresAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				verificationCode: {
					type: DataTypes.STRING(20),
					allowNull: false,
					defaultValue: () => randomBase62(12).toUpperCase(),
				},
				createdAt: DataTypes.DATE,
				updatedAt: DataTypes.DATE,
			},
			{ sequelize, tableName: 'certificates' },
		);
	}
}
