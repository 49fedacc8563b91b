/**
 * Name material for the demo data. A fixed list walked in a fixed order, so every seed has the
 * same shape (and the same people) while ids, passwords and keys stay random.
 */
const FIRST_NAMES = [
	'Olivia', 'Liam', 'Amara', 'Noah', 'Sofia', 'Mateo', 'Chloé', 'Ethan', 'Yuki', 'Lucas',
	'Isabella', 'Kwame', 'Mia', 'Arjun', 'Zoë', 'Daniel', 'Fatima', 'Henrik', 'Grace', 'Tomás',
	'Aisha', 'Oscar', 'Leila', 'Samuel', 'Ingrid', 'Diego', 'Hannah', 'Ravi', 'Nora', 'Felix',
	'Elena', 'Jonah', 'Maya', 'Emeka', 'Clara', 'Bruno', 'Sara', 'Mei', 'Victor', 'Ava',
];

const LAST_NAMES = [
	'Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'García', 'Kowalski', 'Nguyen', 'Schmidt', "O'Brien", 'Haddad',
	'Patel', 'Rossi', 'Andersen', 'Mensah', 'Silva', 'Fischer', 'Kim', 'Dubois', 'Novak', 'Costa',
	'Johansson', 'Ibrahim', 'Walsh', 'Yilmaz', 'Murphy', 'Castillo', 'Bauer', 'Chen', 'Adeyemi', 'Larsen',
	'Ferreira', 'Müller', 'Sato', 'Romero', 'Hughes', 'Varga', 'Bianchi', 'Reyes', 'Nakamura', 'Byrne',
];

export interface Person {
	name: string;
	email: string;
}

/** `Chloé O'Brien` → `chloe.obrien`: what a mail administrator would have made of the name. */
function localPart(first: string, last: string): string {
	const ascii = (s: string) => s.normalize('NFD').replace(/[^A-Za-z]/g, '').toLowerCase();
	return `${ascii(first)}.${ascii(last)}`;
}

/**
 * Hands out people for one organization. `offset` shifts the walk so organizations do not
 * all start with the same names; duplicates within the organization get a number.
 */
export function peopleOf(domain: string, offset: number): () => Person {
	let n = offset;
	const taken = new Set<string>();
	return () => {
		const first = FIRST_NAMES[n % FIRST_NAMES.length];
		// 17 is coprime with 40, so the pairs cycle through all 1,600 combinations.
		const last = LAST_NAMES[(n * 17 + Math.floor(n / FIRST_NAMES.length)) % LAST_NAMES.length];
		n += 1;
		let local = localPart(first, last);
		for (let i = 2; taken.has(local); i++) local = `${localPart(first, last)}${i}`;
		taken.add(local);
		return { name: `${first} ${last}`, email: `${local}@${domain}` };
	};
}
