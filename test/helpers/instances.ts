import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';

/**
 * Real `lms-server start` processes, as an operator runs them behind a load balancer. The
 * environment is only what the test passes (plus PATH). Each process listens on a free port
 * (PORT=0) and is ready once it has logged where it listens and `/readyz` answers 200.
 */

const BIN = join(__dirname, '..', '..', 'server', 'bin', 'lms-server.js');

export interface Instance {
	url: string;
	pid: number;
	/** Everything the process printed so far (JSON log lines). */
	output(): string;
	/** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code (null when killed). */
	stop(graceMs?: number): Promise<number | null>;
}

const running = new Set<ChildProcessWithoutNullStreams>();
// Never leave a server behind, even when a test run is interrupted.
process.once('exit', () => {
	for (const child of running) child.kill('SIGKILL');
});

export async function startInstance(
	env: Record<string, string>,
	args: string[] = ['--no-migrate'],
	readyTimeoutMs = 20_000,
): Promise<Instance> {
	const child = spawn(process.execPath, [BIN, 'start', ...args], {
		env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
	});
	running.add(child);
	let text = '';
	child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
	child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
	const exited = new Promise<number | null>((resolve) =>
		child.once('exit', (code) => {
			running.delete(child);
			resolve(code);
		}),
	);

	const stop = async (graceMs = 10_000) => {
		if (child.exitCode === null && child.signalCode === null) {
			child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
			const code = await exited;
			clearTimeout(timer);
			return code;
		}
		return exited;
	};

	try {
		const url = await new Promise<string>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`lms-server did not start within ${readyTimeoutMs} ms:\n${text}`)), readyTimeoutMs);
			const look = () => {
				const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(text);
				if (match) {
					clearTimeout(timer);
					child.stdout.off('data', look);
					resolve(match[1]);
				}
			};
			child.stdout.on('data', look);
			void exited.then((code) => {
				clearTimeout(timer);
				reject(new Error(`lms-server exited with ${code} before listening:\n${text}`));
			});
		});
		for (let i = 0; ; i++) {
			const ready = await fetch(`${url}/readyz`).catch(() => undefined);
			if (ready?.status === 200) break;
			if (i > 100) throw new Error(`${url}/readyz never answered 200 (last: ${ready?.status}):\n${text}`);
			await new Promise((r) => setTimeout(r, 100));
		}
		return { url, pid: child.pid!, output: () => text, stop };
	} catch (err) {
		await stop(1000);
		throw err;
	}
}
