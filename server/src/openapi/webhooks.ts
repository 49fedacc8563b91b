import { MAX_ENDPOINTS } from '../webhooks/service';

/** POST /api/v1/webhook_endpoints's description: the URL policy and the scope rule (SPEC §12). */
export const createDescription =
	`Subscribes a URL to events. The answer carries the signing secret (\`whsec_…\`), shown this once. At most ${MAX_ENDPOINTS} endpoints per organization. ` +
	'The URL must be http or https and every address its host resolves to public: IPv4 unicast or IPv6 2000::/3, outside IANA\'s special-purpose registries ' +
	'(a private or loopback destination only if the server names it in WEBHOOK_ALLOWED_HOSTS, or sets WEBHOOK_ALLOW_PRIVATE=true); otherwise 422 invalid_webhook_url, ' +
	'"not a public address", never saying what the name resolved to. The URL is stored and returned as parsed (`new URL(url).href`). Needs `manage:webhooks`, and the scopes that read each named type through the feed ' +
	'(`read:users` for `user.*`, `read:enrollments` for `enrollment.*` and `certificate.*`): a type the key cannot read answers 403 `insufficient_scope`, ' +
	'and `*` means every type the key can read (403 if none). The endpoint belongs to the calling key: it receives only what that key\'s scopes read at send time, ' +
	'is disabled when the key is revoked and passes to the new key when it is rotated. Creation and deletion are in the keys page\'s audit log.';
