import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface CliResult {
	code: number;
	stdout: string;
	stderr: string;
}

const CLI = join(__dirname, '..', '..', 'server', 'dist', 'cli.js');

/**
 * Runs the built `lms-server` as an operator would. The environment is only what the test
 * passes (plus PATH), so the developer's own DATABASE_URL or LMS_PASSWORD can't leak in.
 * stdin gets `input` and is then closed, like a shell pipe. `umask` runs it under that umask,
 * `cwd` in that folder (where relative DATABASE_URLs resolve).
 */
export function runCli(
	args: string[],
	opts: { env?: Record<string, string | undefined>; input?: string; umask?: number; cwd?: string } = {},
): Promise<CliResult> {
	return new Promise((resolve, reject) => {
		// A umask is set by a shell in front, as an operator's login shell would have it.
		const [command, argv] =
			opts.umask === undefined
				? [process.execPath, [CLI, ...args]]
				: ['/bin/sh', ['-c', `umask ${opts.umask.toString(8).padStart(3, '0')}; exec "$0" "$@"`, process.execPath, CLI, ...args]];
		const child = spawn(command, argv, {
			env: { PATH: process.env.PATH, ...opts.env },
			cwd: opts.cwd,
			stdio: ['pipe', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
		child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
		child.on('error', reject);
		child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
		child.stdin.end(opts.input ?? '');
	});
}
