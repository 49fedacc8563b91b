import { fstatSync } from 'node:fs';

/** How long a spawned process's stdin may stay silent before we decide nothing was piped. */
const SILENT_STDIN_MS = 1000;

/**
 * The new user's password: from LMS_PASSWORD, else from stdin when something is piped or
 * redirected into it. Never from argv, where `ps` and shell history would show it.
 * Returns undefined when there is no password to read (an interactive terminal, /dev/null).
 */
export async function readPassword(): Promise<string | undefined> {
	const fromEnv = process.env.LMS_PASSWORD;
	if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
	if (process.stdin.isTTY) return undefined;
	const stat = fstatSync(0);
	// A shell pipe (FIFO) or a redirected file always ends, so wait for the end. A socket is
	// what a parent process hands over when it spawns us; it may never be closed, so a silent
	// one means "no password" rather than a hang.
	const silentLimit = stat.isSocket() ? SILENT_STDIN_MS : undefined;
	const text = await readStdin(silentLimit);
	// One trailing newline is how `echo` and editors end a line, not part of the password.
	const password = text.replace(/\r?\n$/, '');
	return password === '' ? undefined : password;
}

function readStdin(silentLimitMs: number | undefined): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		const stdin = process.stdin;
		const finish = () => {
			clearTimeout(timer);
			stdin.off('data', onData).off('end', finish).off('error', onError);
			stdin.destroy();
			resolve(Buffer.concat(chunks).toString('utf8'));
		};
		const onData = (chunk: Buffer) => {
			chunks.push(chunk);
			clearTimeout(timer);
		};
		const onError = (err: Error) => {
			clearTimeout(timer);
			reject(err);
		};
		const timer = silentLimitMs === undefined ? undefined : setTimeout(finish, silentLimitMs);
		stdin.on('data', onData).once('end', finish).once('error', onError);
	});
}
