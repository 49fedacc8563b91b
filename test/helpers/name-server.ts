import { createSocket } from 'node:dgram';

export interface NameServer {
	/** `127.0.0.1:port`, for WEBHOOK_DNS_SERVERS. */
	address: string;
	/** The IPv4 address every A question is answered with from now on (AAAA: none). */
	answerWith(ipv4: string): void;
	/** Questions received so far. */
	asked(): number;
	close(): Promise<void>;
}

/**
 * A name server on 127.0.0.1 that answers every A question with one address, TTL 0 (so the
 * server asks again at every check): a test changes the answer to play a DNS record that moves.
 */
export async function startNameServer(ipv4: string): Promise<NameServer> {
	const socket = createSocket('udp4');
	let answer = ipv4;
	let asked = 0;
	socket.on('message', (query, from) => {
		asked += 1;
		// The question: labels from byte 12 to a zero byte, then type and class.
		let at = 12;
		while (query[at] !== 0) at += query[at] + 1;
		const questionEnd = at + 5;
		const isA = query.readUInt16BE(at + 1) === 1;
		const header = Buffer.alloc(12);
		query.copy(header, 0, 0, 2); // the id
		header.writeUInt16BE(0x8180, 2); // a response, recursion desired and available, no error
		header.writeUInt16BE(1, 4);
		header.writeUInt16BE(isA ? 1 : 0, 6);
		// A name pointer to the question, type A, class IN, TTL 0, 4 bytes of address.
		const record = isA ? Buffer.concat([Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4]), Buffer.from(answer.split('.').map(Number))]) : Buffer.alloc(0);
		socket.send(Buffer.concat([header, query.subarray(12, questionEnd), record]), from.port, from.address);
	});
	await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
	return {
		address: `127.0.0.1:${socket.address().port}`,
		answerWith: (next) => (answer = next),
		asked: () => asked,
		close: () => new Promise((resolve) => socket.close(() => resolve())),
	};
}
