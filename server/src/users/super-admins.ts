import { User } from './model';

/** The people an Admin is sent to for keys, webhooks or a plan question: the organization's Super Admins. */
export function superAdminsOf(organizationId: string): Promise<Array<Pick<User, 'name' | 'email'>>> {
	return User.findAll({
		attributes: ['name', 'email'],
		where: { organizationId, role: 'super_admin' },
		order: [['name', 'ASC']],
		limit: 5,
	});
}
