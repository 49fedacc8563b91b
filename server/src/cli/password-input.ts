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

/**
 * A password typed at a terminal, not echoed: raw mode, Enter ends it, Backspace erases,
 * Ctrl-C or Ctrl-D gives up. The prompt goes to stderr, so stdout stays the command's output.
 */
function promptHidden(question: string): Promise<string> {
	return new Promise((resolve, reject) => {
		const stdin = process.stdin;
		let typed = '';
		process.stderr.write(question);
		stdin.setRawMode(true);
		stdin.resume();
		stdin.setEncoding('utf8');
		const done = (err?: Error) => {
			stdin.setRawMode(false);
			stdin.pause();
			stdin.off('data', onData);
			process.stderr.write('\n');
			if (err) reject(err);
			else resolve(typed);
		};
		const onData = (chunk: string) => {
			for (const c of chunk) {
				if (c === '\r' || c === '\n') return done();
				if (c === '\u0003' || c === '\u0004') return done(new Error('cancelled'));
				if (c === '\u007f' || c === '\b') typed = typed.slice(0, -1);
				else typed += c;
			}
		};
		stdin.on('data', onData);
	});
}

/**
 * A new password for `users set-password`: asked twice at a terminal, else as readPassword()
 * reads one (LMS_PASSWORD, or piped on stdin). Never from argv. `mismatch` is thrown when the
 * two typed differ; undefined means there was nothing to read.
 */
export async function readNewPassword(mismatch: () => Error): Promise<string | undefined> {
	const fromEnv = process.env.LMS_PASSWORD;
	if (!process.stdin.isTTY || (fromEnv !== undefined && fromEnv !== '')) return readPassword();
	const first = await promptHidden('New password: ');
	const second = await promptHidden('Repeat it: ');
	if (first !== second) throw mismatch();
	return first === '' ? undefined : first;
}
