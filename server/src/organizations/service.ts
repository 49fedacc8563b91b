import { UniqueConstraintError } from 'sequelize';

import { RuleError } from '../common/rule-error';
import { controlCharactersRefused, hasControlCharacters } from '../common/text';
import { Organization, PLANS, type Plan } from './model';

/** Lower-case letters, digits and inner hyphens: safe in URLs, e-mail domains and shells. */
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function normalisePlan(plan: unknown): Plan {
	if (typeof plan === 'string' && (PLANS as readonly string[]).includes(plan)) return plan as Plan;
	throw new RuleError('invalid_plan', `Unknown plan ${JSON.stringify(plan ?? '')}: choose from ${PLANS.join(', ')}.`);
}

export async function findOrganization(slug: string): Promise<Organization> {
	const organization = await Organization.findOne({ where: { slug } });
	if (!organization) throw new RuleError('organization_not_found', `No organization with slug "${slug}".`);
	return organization;
}

/** Every organization, oldest first: the operator's overview (the CLI's `orgs list`). */
export function listOrganizations(): Promise<Organization[]> {
	return Organization.findAll({ order: [['createdAt', 'ASC'], ['id', 'ASC']] });
}

export async function createOrganization(input: { name: unknown; slug: unknown; plan: unknown }): Promise<Organization> {
	const name = typeof input.name === 'string' ? input.name.trim() : '';
	if (name.length < 1 || name.length > 200) {
		throw new RuleError('invalid_name', 'Give the organization a name of 1 to 200 characters.');
	}
	if (hasControlCharacters(name)) throw new RuleError('invalid_name', controlCharactersRefused('name'));
	const slug = typeof input.slug === 'string' ? input.slug : '';
	if (!SLUG.test(slug)) {
		throw new RuleError(
			'invalid_slug',
			`The slug ${JSON.stringify(slug)} is not valid: use 1 to 63 lower-case letters, digits and inner hyphens.`,
		);
	}
	const plan = normalisePlan(input.plan);
	try {
		return await Organization.create({ name, slug, plan });
	} catch (err) {
		if (err instanceof UniqueConstraintError) {
			throw new RuleError('slug_taken', `An organization with slug "${slug}" already exists.`);
		}
		throw err;
	}
}

/**
 * Changes the plan. Nothing else needs to happen: every API request reads the plan afresh,
 * so a downgrade from enterprise answers 403 plan_required on the very next request and an
 * upgrade brings the same keys back.
 */
export async function changePlan(slug: string, plan: unknown): Promise<Organization> {
	const next = normalisePlan(plan);
	const organization = await findOrganization(slug);
	return organization.update({ plan: next });
}
