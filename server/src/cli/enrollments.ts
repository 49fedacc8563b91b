import type { Command } from 'commander';

import { changeEnrollment, type EnrollmentChange } from '../enrollments/change';
import { ENROLLMENT_STATUSES, type EnrollmentStatus } from '../enrollments/model';
import { serializeEnrollment } from '../enrollments/serialize';
import { withDatabase } from './context';
import { CliError, printJson, printLines } from './output';

/** `--status`: the API's three, plus `expired`, which only the platform (the operator) sets. */
function parseStatus(value: string | undefined): EnrollmentStatus | undefined {
	if (value === undefined) return undefined;
	if (!(ENROLLMENT_STATUSES as readonly string[]).includes(value)) {
		throw new CliError(`unknown status "${value}": choose from ${ENROLLMENT_STATUSES.join(', ')}.`);
	}
	return value as EnrollmentStatus;
}

function parseProgress(value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	if (!/^\d{1,3}$/.test(value) || Number(value) > 100) throw new CliError(`--progress must be an integer from 0 to 100, not "${value}".`);
	return Number(value);
}

export function registerEnrollments(program: Command): void {
	const enrollments = program.command('enrollments').description('change enrollments (the same rules and events as the API)');

	enrollments
		.command('update')
		.description('progress, complete, withdraw, reactivate or expire an enrollment')
		.argument('<id>', 'enrollment id (enr_…)')
		.option('--status <status>', 'active, completed, withdrawn or expired')
		.option('--progress <percent>', 'progress, 0 to 100 (100 completes the enrollment)')
		.option('--json', 'print the enrollment as the API shows it')
		.action((id: string, opts: { status?: string; progress?: string; json?: boolean }) => {
			const change: EnrollmentChange = { status: parseStatus(opts.status), progress: parseProgress(opts.progress) };
			if (change.status === undefined && change.progress === undefined) {
				throw new CliError('nothing to change: give --status, --progress or both.');
			}
			return withDatabase(async () => {
				const enrollment = await changeEnrollment(undefined, id, change);
				if (opts.json) return printJson(serializeEnrollment(enrollment));
				printLines(`Enrollment ${enrollment.id} is ${enrollment.status}, progress ${enrollment.progressPercent}%.`);
			});
		});
}
