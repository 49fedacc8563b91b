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
import { lmsListSearch } from './list-search';

/** What every version of an LMS action node says the same way. */
export interface LmsActionNodeOptions {
	/** The expression n8n shows under the node's name. */
	subtitle: string;
	/** The Operation selector and every operation's parameters. */
	properties: INodeProperties[];
	operations: Record<string, LmsOperation>;
}

/**
 * An LMS action node of one version: its description, and `execute` running its operations
 * through the shared transport. `execute` is a closure because n8n calls it with the execution
 * context as `this`. The versions differ only in the description's head (below and action-node-v1.ts).
 */
export class LmsActionNode implements INodeType {
	description: INodeTypeDescription;

	execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;

	constructor(
		head: Pick<INodeTypeDescription, 'displayName' | 'name' | 'icon' | 'group' | 'version' | 'description'> & Partial<INodeTypeDescription>,
		{ subtitle, properties, operations }: LmsActionNodeOptions,
	) {
		this.description = {
			...head,
			subtitle,
			defaults: { name: head.displayName },
			usableAsTool: true,
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'lmsApi', required: true }],
			properties,
		};
		this.execute = async function (this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return await executeLmsOperation.call(this, operations);
		};
	}
}

export interface LmsActionNodeV2Options extends LmsActionNodeOptions {
	/** The versions this class serves (n8n's light versioning: 2.1 adds parameters shown from 2.1 on); default [2]. */
	versions?: number[];
}

/**
 * Version 2 of an LMS action node: the base description (name, icon, description) comes from the
 * versioned node's own file, where n8n resolves the icon; version 2 adds the record pickers'
 * list searches.
 */
export class LmsActionNodeV2 extends LmsActionNode {
	methods = { listSearch: lmsListSearch };

	constructor(baseDescription: INodeTypeBaseDescription, options: LmsActionNodeV2Options) {
		super({ ...baseDescription, version: options.versions ?? 2 }, options);
	}
}
