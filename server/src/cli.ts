#!/usr/bin/env node
import { reportError } from './cli/errors';
import { buildProgram } from './cli/program';

/**
 * `lms-server`. One-shot commands exit as soon as they finish (an idle database handle or a
 * half-read stdin must not keep the process alive); `start` stays up until a signal.
 */
async function main(argv: string[]): Promise<void> {
	const program = buildProgram();
	try {
		await program.parseAsync(argv);
	} catch (err) {
		process.exit(reportError(err));
	}
	if (program.args[0] !== 'start') process.exit(0);
}

void main(process.argv);
