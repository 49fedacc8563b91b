import { request } from 'node:http';

export interface PageResponse {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: string;
}

/**
 * A browser-like client for the settings pages that keeps its cookies and connects from a
 * loopback address of its choice (127.0.0.2, 127.0.0.3…): the whole 127.0.0.0/8 reaches the
 * server, and each address is a distinct client IP to it, without trusting any proxy header.
 */
export class PageClient {
	private readonly cookies = new Map<string, string>();

	constructor(
		readonly baseUrl: string,
		readonly from = '127.0.0.1',
		/** Headers sent with every request (X-Forwarded-For, to a server that trusts loopback as its proxy). */
		readonly extraHeaders: Record<string, string> = {},
	) {}

	cookie(name: string): string | undefined {
		return this.cookies.get(name);
	}

	/** Sets a cookie as if the server had (to send one it never did). */
	setCookie(name: string, value: string): void {
		this.cookies.set(name, value);
	}

	get(path: string): Promise<PageResponse> {
		return this.send('GET', path);
	}

	/** A form post; a field given a list is sent once per item, as checkboxes are. */
	post(path: string, form: Record<string, string | string[]>): Promise<PageResponse> {
		const body = new URLSearchParams();
		for (const [name, value] of Object.entries(form)) for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
		return this.send('POST', path, body.toString());
	}

	/** The CSRF token of the first form on a page. */
	static csrfToken(page: PageResponse): string {
		const match = /name="_csrf" value="([^"]*)"/.exec(page.body);
		if (!match) throw new Error(`no CSRF token on the page (status ${page.status})`);
		return match[1];
	}

	/**
	 * What a sign-in answered: `signed-in` (303 onwards, with a session cookie), `refused` (post/
	 * redirect/get: 303 back to /login with the refusal's cookie and no session), `throttled` (429,
	 * SPEC §14), or the status of anything else.
	 */
	static signInOutcome(answer: PageResponse): 'signed-in' | 'refused' | 'throttled' | number {
		const cookies = [answer.headers['set-cookie'] ?? []].flat();
		const location = String(answer.headers.location ?? '');
		if (answer.status === 429) return 'throttled';
		if (answer.status !== 303) return answer.status;
		if (/^\/login(\?next=[^&]*)?$/.test(location) && cookies.some((c) => c.startsWith('lms.sign-in-refused=')) && !cookies.some((c) => c.startsWith('lms.sid='))) return 'refused';
		if (!location.startsWith('/login') && cookies.some((c) => c.startsWith('lms.sid='))) return 'signed-in';
		return answer.status;
	}

	/** A refused sign-in's page, fetched as the browser would after the redirect (it says why, once). */
	async refusalPage(answer: PageResponse): Promise<PageResponse> {
		if (PageClient.signInOutcome(answer) !== 'refused') throw new Error(`not a refused sign-in (status ${answer.status}, location ${String(answer.headers.location)})`);
		return this.get(String(answer.headers.location));
	}

	/** GET /login, then submit the form as a person would. */
	async signIn(email: string, password: string): Promise<PageResponse> {
		const form = await this.get('/login');
		return this.post('/login', { email, password, next: '/settings', _csrf: PageClient.csrfToken(form) });
	}

	private send(method: string, path: string, body?: string): Promise<PageResponse> {
		const url = new URL(path, this.baseUrl);
		const headers: Record<string, string> = { ...this.extraHeaders };
		if (this.cookies.size > 0) headers.Cookie = [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ');
		if (body !== undefined) {
			headers['Content-Type'] = 'application/x-www-form-urlencoded';
			headers['Content-Length'] = String(Buffer.byteLength(body));
		}
		return new Promise((resolve, reject) => {
			const req = request(
				{ host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, localAddress: this.from, agent: false },
				(res) => {
					const chunks: Buffer[] = [];
					res.on('data', (c: Buffer) => chunks.push(c));
					res.on('end', () => {
						for (const line of res.headers['set-cookie'] ?? []) {
							const [pair, ...attributes] = line.split(';');
							const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
							const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
							if (expired || value === '') this.cookies.delete(name.trim());
							else this.cookies.set(name.trim(), value);
						}
						resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
					});
					res.on('error', reject);
				},
			);
			req.on('error', reject);
			req.end(body);
		});
	}
}
