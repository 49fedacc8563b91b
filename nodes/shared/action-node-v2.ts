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

export interface LmsActionNodeV2Options {
	/** The expression n8n shows under the node's name. */
	subtitle: string;
	/** The Operation selector and every operation's parameters. */
	properties: INodeProperties[];
	operations: Record<string, LmsOperation>;
	/** The versions this class serves (n8n's light versioning: 2.1 adds parameters shown from 2.1 on); default [2]. */
	versions?: number[];
}

/**
 * Version 2 of an LMS action node: the base description (name, icon, description) comes from the
 * versioned node's own file, where n8n resolves the icon; version 2 adds the record pickers'
 * list searches. `execute` is a closure because n8n calls it with the execution context as `this`.
 */
export class LmsActionNodeV2 implements INodeType {
	description: INodeTypeDescription;

	methods = { listSearch: lmsListSearch };

	execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;

	constructor(baseDescription: INodeTypeBaseDescription, options: LmsActionNodeV2Options) {
		this.description = {
			...baseDescription,
			version: options.versions ?? 2,
			subtitle: options.subtitle,
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
