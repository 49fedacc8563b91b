import type { Plan } from '../organizations/model';

interface DemoCourse {
	title: string;
	description: string;
	/** Compliance certificates lapse (days after issue); skills certificates do not (null). */
	certificateValidityDays: number | null;
}

export interface DemoOrganization {
	slug: string;
	name: string;
	plan: Plan;
	domain: string;
	admins: number;
	instructors: number;
	students: number;
	/** Every fourth course (positions 4, 8, 12) is a draft, so drafts sit between published ones. */
	courses: DemoCourse[];
	/** Student i takes 1 + (i mod this) published courses. */
	coursesPerStudentCycle: number;
}

const course = (title: string, description: string, certificateValidityDays: number | null = null): DemoCourse => ({
	title,
	description,
	certificateValidityDays,
});

/** SPEC §8's demo data, as data. */
export const DEMO_ORGANIZATIONS: DemoOrganization[] = [
	{
		slug: 'acme',
		name: 'Acme Corporation',
		plan: 'enterprise',
		domain: 'acme.test',
		admins: 1,
		instructors: 3,
		students: 150,
		coursesPerStudentCycle: 3,
		courses: [
			course('Workplace Safety Essentials', 'Hazards, reporting and first response on the shop floor and in the office.', 365),
			course('Data Privacy and GDPR', 'What personal data is, how we may use it, and what to do when something goes wrong.', 730),
			course('Effective Feedback', 'Giving and receiving feedback that people can act on.'),
			course('Quarterly Planning Workshop', 'Draft: planning rituals for team leads.'),
			course('Introduction to SQL', 'SELECT, JOIN and GROUP BY against a real sales database.'),
			course('Customer Support Fundamentals', 'Tone, triage and escalation for first-line support.'),
			course('Anti-Bribery and Corruption', 'Gifts, hospitality and third parties under the Acme code of conduct.', 365),
			course('Advanced Excel for Analysts', 'Draft: pivot tables, Power Query and dynamic arrays.'),
			course('Project Management Basics', 'Scope, schedule and stakeholders for first-time project leads.'),
			course('Information Security Awareness', 'Phishing, passwords and safe handling of company devices.', 90),
			course('Presenting with Confidence', 'Structure a talk, design clear slides and handle questions.'),
			course('Inclusive Leadership', 'Draft: building teams where everyone can contribute.'),
		],
	},
	{
		slug: 'globex',
		name: 'Globex Industries',
		plan: 'enterprise',
		domain: 'globex.test',
		admins: 0,
		instructors: 0,
		students: 40,
		coursesPerStudentCycle: 2,
		courses: [
			course('Forklift Operator Certification', 'Theory for the practical forklift assessment.', 730),
			course('Lean Manufacturing', 'Waste, flow and continuous improvement on the line.'),
			course('Hazardous Materials Handling', 'Labels, storage and spill response.', 90),
			course('Supplier Quality Audits', 'Draft: preparing and running a supplier audit.'),
			course('New Starter Orientation', 'Everything you need in your first week at Globex.'),
		],
	},
	{
		slug: 'initech',
		name: 'Initech',
		plan: 'business',
		domain: 'initech.test',
		admins: 0,
		instructors: 0,
		students: 10,
		coursesPerStudentCycle: 1,
		courses: [],
	},
];

export const DEMO_SLUGS = DEMO_ORGANIZATIONS.map((o) => o.slug);
