import { DataTypes, Model, type CreationOptional, type ForeignKey, type InferAttributes, type InferCreationAttributes, type Sequelize, type Transaction } from 'sequelize';

import { newId } from '../common/ids';
import { indexRecords, wordSuffixes } from '../search/words';
import type { Organization } from '../organizations/model';

const COURSE_STATUSES = ['draft', 'published'] as const;
export type CourseStatus = (typeof COURSE_STATUSES)[number];

export class Course extends Model<InferAttributes<Course>, InferCreationAttributes<Course>> {
	declare id: CreationOptional<string>;
	declare organizationId: ForeignKey<Organization['id']>;
	declare title: string;
	declare description: string;
	declare status: CourseStatus;
	declare publishedAt: Date | null;
	/** Days a certificate of this course stays valid; null = it never expires. Not shown by the API. */
	declare certificateValidityDays: CreationOptional<number | null>;
	declare createdAt: CreationOptional<Date>;
	declare updatedAt: CreationOptional<Date>;

	static initModel(sequelize: Sequelize): void {
		Course.init(
			{
				id: { type: DataTypes.STRING(40), primaryKey: true, defaultValue: () => newId('crs') },
				organizationId: { type: DataTypes.STRING(40), allowNull: false },
				title: { type: DataTypes.STRING(200), allowNull: false },
				description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
				status: { type: DataTypes.STRING(20), allowNull: false, validate: { isIn: [COURSE_STATUSES] } },
				publishedAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
				certificateValidityDays: { type: DataTypes.INTEGER, allowNull: true, defaultValue: null, validate: { min: 1 } },
				createdAt: DataTypes.DATE,
				updatedAt: DataTypes.DATE,
			},
			{
				sequelize,
				tableName: 'courses',
				// The search index is written in the creating transaction, whoever creates the course.
				hooks: {
					afterCreate: (course, options) => indexCourses([course], options.transaction),
					afterBulkCreate: (courses, options) => indexCourses(courses, options.transaction),
				},
			},
		);
	}
}

const indexCourses = (courses: readonly Course[], transaction: Transaction | null | undefined) =>
	indexRecords(
		'course',
		courses.map((c) => ({ id: c.id, organizationId: c.organizationId, texts: wordSuffixes(c.title) })),
		transaction,
	);
