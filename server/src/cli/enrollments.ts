import type { Command } from 'commander';

import { changeEnrollment, type EnrollmentChange } from '../enrollments/change';
import { enrollStudent } from '../enrollments/enroll';
import { ENROLLMENT_STATUSES, type EnrollmentStatus, type Enrollment } from '../enrollments/model';
import { serializeEnrollment } from '../enrollments/serialize';
import { isDateTime } from '../common/time';
import { findOrganization } from '../organizations/service';
import { withDatabase } from './context';
import { printJson, printLines, UsageError } from './output';

/** `--status`: the API's three, plus `expired`, which only the platform (the operator) sets. */
function parseStatus(value: string | undefined): EnrollmentStatus | undefined {
	if (value === undefined) return undefined;
	if (!(ENROLLMENT_STATUSES as readonly string[]).includes(value)) {
		throw new UsageError(`unknown status "${value}": choose from ${ENROLLMENT_STATUSES.join(', ')}.`);
	}
	return value as EnrollmentStatus;
}

function parseProgress(value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	if (!/^\d{1,3}$/.test(value) || Number(value) > 100) throw new UsageError(`--progress must be an integer from 0 to 100, not "${value}".`);
	return Number(value);
}

/** `--due`: the API's date-time (with an offset), or `none` to clear the deadline. */
function parseDue(value: string | undefined): Date | null | undefined {
	if (value === undefined) return undefined;
	if (value === 'none') return null;
	if (!isDateTime(value)) {
		throw new UsageError(`--due must be an ISO 8601 date-time with an offset, such as 2026-12-31T17:00:00Z, or none; not "${value}".`);
	}
	return new Date(value);
}

const DUE_HELP = 'deadline: an ISO 8601 date-time with an offset (2026-12-31T17:00:00Z), or none to clear it';

function describe(enrollment: Enrollment): string {
	const due = enrollment.dueAt === null ? '' : `, due ${enrollment.dueAt.toISOString()}${serializeEnrollment(enrollment).overdue ? ' (overdue)' : ''}`;
	return `Enrollment ${enrollment.id} is ${enrollment.status}, progress ${enrollment.progressPercent}%${due}.`;
}

export function registerEnrollments(program: Command): void {
	const enrollments = program.command('enrollments').description('create and change enrollments (the same rules and events as the API)');

	enrollments
		.command('create')
		.description('enroll a student in a published course, optionally with a deadline')
		.requiredOption('--org <slug>', 'organization slug')
		.requiredOption('--student <id>', 'student id (usr_…)')
		.requiredOption('--course <id>', 'published course id (crs_…)')
		.option('--due <date-time>', DUE_HELP)
		.option('--json', 'print the enrollment as the API shows it')
		.action((opts: { org: string; student: string; course: string; due?: string; json?: boolean }) => {
			const dueAt = parseDue(opts.due) ?? null;
			return withDatabase(async () => {
				const organization = await findOrganization(opts.org);
				const enrollment = await enrollStudent(organization.id, opts.student, opts.course, dueAt);
				if (opts.json) return printJson(serializeEnrollment(enrollment));
				printLines(describe(enrollment));
			});
		});

	enrollments
		.command('update')
		.description('progress, complete, withdraw, reactivate or expire an enrollment')
		.argument('<id>', 'enrollment id (enr_…)')
		.option('--status <status>', 'active, completed, withdrawn or expired')
		.option('--progress <percent>', 'progress, 0 to 100 (100 completes the enrollment)')
		.option('--due <date-time>', DUE_HELP)
		.option('--json', 'print the enrollment as the API shows it')
		.action((id: string, opts: { status?: string; progress?: string; due?: string; json?: boolean }) => {
			const change: EnrollmentChange = { status: parseStatus(opts.status), progress: parseProgress(opts.progress), dueAt: parseDue(opts.due) };
			if (change.status === undefined && change.progress === undefined && change.dueAt === undefined) {
				throw new UsageError('nothing to change: give --status, --progress, --due or several.');
			}
			return withDatabase(async () => {
				const enrollment = await changeEnrollment(undefined, id, change);
				if (opts.json) return printJson(serializeEnrollment(enrollment));
				printLines(describe(enrollment));
			});
		});
}
