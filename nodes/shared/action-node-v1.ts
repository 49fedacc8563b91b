import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { executeLmsOperation, type LmsOperation } from './execute';

export interface LmsActionNodeV1Options {
	/** The expression n8n shows under the node's name. */
	subtitle: string;
	/** Version 1's own description (the versioned node's is version 2's). */
	description: string;
	/** The Operation selector and every operation's parameters. */
	properties: INodeProperties[];
	operations: Record<string, LmsOperation>;
}

/**
 * Version 1 of an LMS action node, as it was published: record ids typed in, no pickers.
 * Programmatic rather than declarative: every request must wait out the LMS's 429s (100 requests
 * a minute per IP) and map its problem codes to actionable errors, which declarative routing
 * cannot do; the shared transport does both for all LMS nodes. Name and icon come from the
 * versioned node's own file: n8n resolves every version's icon against that file, and the type
 * name is defined in one place. `execute` is a closure because n8n calls it with the execution
 * context as `this`.
 */
export class LmsActionNodeV1 implements INodeType {
	description: INodeTypeDescription;

	execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;

	constructor(baseDescription: INodeTypeBaseDescription, options: LmsActionNodeV1Options) {
		this.description = {
			displayName: baseDescription.displayName,
			name: baseDescription.name,
			icon: baseDescription.icon,
			group: ['transform'],
			version: 1,
			subtitle: options.subtitle,
			description: options.description,
			defaults: { name: baseDescription.displayName },
			usableAsTool: true,
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'lmsApi', required: true }],
			properties: options.properties,
		};
		const { operations } = options;
		this.execute = async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return await executeLmsOperation.call(this, operations);
		};
	}
}
