import type { INodeTypeBaseDescription } from 'n8n-workflow';

import { LmsActionNode, type LmsActionNodeOptions } from './action-node-v2';

export interface LmsActionNodeV1Options extends LmsActionNodeOptions {
	/** Version 1's own description (the versioned node's is version 2's). */
	description: string;
}

/**
 * Version 1 of an LMS action node, as it was published: record ids typed in, no pickers.
 * Programmatic rather than declarative: every request must wait out the LMS's 429s (100 requests
 * a minute per IP) and map its problem codes to actionable errors, which declarative routing
 * cannot do; the shared transport does both for all LMS nodes. Name and icon come from the
 * versioned node's own file: n8n resolves every version's icon against that file, and the type
 * name is defined in one place.
 */
export class LmsActionNodeV1 extends LmsActionNode {
	constructor({ displayName, name, icon }: INodeTypeBaseDescription, options: LmsActionNodeV1Options) {
		super({ displayName, name, icon, group: ['transform'], version: 1, description: options.description }, options);
	}
}
