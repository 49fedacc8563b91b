import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// n8n-core writes its config (an encryption key) under $N8N_USER_FOLDER/.n8n on import:
// keep it out of the developer's home.
if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = mkdtempSync(join(tmpdir(), 'lms-n8n-'));
}
