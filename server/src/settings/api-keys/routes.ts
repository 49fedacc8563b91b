import type { PageTable } from '../pages';
import { requireSignIn, requireSuperAdmin } from '../viewer';
import { confirmKeyAction } from './confirm';
import { createKeyForm } from './create';
import { API_KEYS } from './keys-page';
import { keysPage } from './list';
import { newKeyPage } from './new-key';
import { revokeKeyForm } from './revoke';
import { rotateKeyForm } from './rotate';

/** Settings → API Keys: Super Admins only (the pages say so to others); creating and rotating need Enterprise (the key service says so). */
export const apiKeyPages: PageTable = {
	base: API_KEYS,
	guards: ({ views }) => [requireSignIn, requireSuperAdmin(views)],
	pages: {
		'': { get: keysPage, post: createKeyForm },
		'/new-key': { get: newKeyPage },
		'/:keyId/:action': { get: confirmKeyAction },
		'/:keyId/rotate': { post: rotateKeyForm },
		'/:keyId/revoke': { post: revokeKeyForm },
	},
};
