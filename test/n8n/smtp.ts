import { createServer, type Server, type Socket } from 'node:net';

/** A message as an SMTP server received it: envelope, headers and decoded text body. */
export interface Mail {
	from: string;
	to: string[];
	headers: Record<string, string>;
	text: string;
}

/**
 * A local SMTP server that accepts every message (no TLS, no authentication), so a workflow's
 * Send Email node talks real SMTP and the test reads what it sent.
 */
export class SmtpSink {
	readonly mails: Mail[] = [];
	private readonly sockets = new Set<Socket>();

	private constructor(
		private readonly server: Server,
		readonly port: number,
	) {}

	static async start(): Promise<SmtpSink> {
		// Connections arrive only once it listens, by when `sink` exists.
		const server = createServer((socket) => sink.serve(socket));
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const sink = new SmtpSink(server, (server.address() as { port: number }).port);
		return sink;
	}

	/** n8n's SMTP credential data for this sink: plain SMTP on loopback, no sign-in. */
	credential(): Record<string, unknown> {
		return { user: '', password: '', host: '127.0.0.1', port: this.port, secure: false, disableStartTls: true };
	}

	async stop(): Promise<void> {
		for (const socket of this.sockets) socket.destroy();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	private serve(socket: Socket): void {
		this.sockets.add(socket);
		socket.on('close', () => this.sockets.delete(socket));
		socket.on('error', () => socket.destroy());
		let buffer = '';
		let data: string[] | undefined;
		let envelope = { from: '', to: [] as string[] };
		const reply = (line: string) => socket.write(`${line}\r\n`);
		reply('220 lms-tests ESMTP');
		socket.on('data', (chunk: Buffer) => {
			buffer += chunk.toString('utf8');
			for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
				const line = buffer.slice(0, end);
				buffer = buffer.slice(end + 2);
				if (data) {
					if (line === '.') {
						this.mails.push({ ...envelope, ...parse(data) });
						data = undefined;
						envelope = { from: '', to: [] };
						reply('250 queued');
					} else data.push(line.startsWith('..') ? line.slice(1) : line);
					continue;
				}
				const verb = line.slice(0, 4).toUpperCase();
				if (verb === 'EHLO' || verb === 'HELO') reply('250 lms-tests');
				else if (verb === 'MAIL') envelope.from = address(line);
				else if (verb === 'RCPT') envelope.to.push(address(line));
				else if (verb === 'DATA') {
					data = [];
					reply('354 end with <CRLF>.<CRLF>');
					continue;
				} else if (verb === 'QUIT') {
					reply('221 bye');
					socket.end();
					continue;
				}
				if (verb === 'MAIL' || verb === 'RCPT' || verb === 'RSET' || verb === 'NOOP') reply('250 ok');
				else if (verb !== 'EHLO' && verb !== 'HELO') reply('502 not implemented');
			}
		});
	}
}

const address = (line: string) => /<([^>]*)>/.exec(line)?.[1] ?? '';

/** Headers (unfolded, names lower-cased) and a single-part body, quoted-printable decoded. */
function parse(lines: string[]): Pick<Mail, 'headers' | 'text'> {
	const blank = lines.indexOf('');
	const headers: Record<string, string> = {};
	let name = '';
	for (const line of lines.slice(0, blank)) {
		if (/^\s/.test(line) && name) headers[name] += ` ${line.trim()}`;
		else {
			const colon = line.indexOf(':');
			name = line.slice(0, colon).toLowerCase();
			headers[name] = line.slice(colon + 1).trim();
		}
	}
	let text = lines.slice(blank + 1).join('\n');
	if (/quoted-printable/i.test(headers['content-transfer-encoding'] ?? '')) {
		const escaped = text.replace(/=\n/g, '').replace(/%/g, '%25');
		text = decodeURIComponent(escaped.replace(/=([0-9A-F]{2})/gi, (_, hex: string) => `%${hex}`));
	}
	return { headers, text };
}
