import type { SeededRandom } from '../random.ts';

export interface DemoTeam {
  readonly id: string;
  readonly name: string;
}

export interface DemoUser {
  readonly id: string;
  readonly email: string;
  readonly firstName: string | null;
  readonly lastName: string | null;
  readonly avatarUrl: string | null;
  readonly teamIds: readonly string[];
}

export interface DemoOrganization {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
}

export interface People {
  readonly organization: DemoOrganization;
  readonly teams: readonly DemoTeam[];
  readonly users: readonly DemoUser[];
  /** The account the demo token belongs to. */
  readonly viewer: DemoUser;
}

const TEAM_NAMES = ['Platform', 'Payments', 'Developer Experience', 'Data Science'];

// [firstName, lastName, team indexes]; the last entry is a service account with no
// personal name, which real reporting data contains and clients must tolerate.
const USERS: readonly [string | null, string | null, readonly number[]][] = [
  ['Ana', 'Ruiz', [0, 1]],
  ['Ben', 'Okafor', [0]],
  ['Chen', 'Wei', [1]],
  ['Dana', 'Kowalski', [1, 2]],
  ['Elif', 'Demir', [2]],
  ['Farid', 'Haddad', [3]],
  ['Grace', "O'Neill", [0, 3]],
  [null, null, [0]],
];

export function buildPeople(rng: SeededRandom): People {
  const organization = { id: rng.uuid(), slug: 'acme', name: 'Acme Robotics' };
  const teams = TEAM_NAMES.map((name) => ({ id: rng.uuid(), name }));
  const users = USERS.map(([firstName, lastName, teamIndexes], index): DemoUser => {
    const id = rng.uuid();
    const local = firstName ? `${firstName}.${lastName}`.toLowerCase().replace(/'/g, '') : 'ci-bot';
    return {
      id,
      email: `${local}@acme.dev`,
      firstName,
      lastName,
      avatarUrl: index % 3 === 2 ? null : `https://avatars.acme.dev/${id}.png`,
      teamIds: teamIndexes.map((t) => teams[t]!.id),
    };
  });
  return { organization, teams, users, viewer: users[0]! };
}

export function displayName(user: DemoUser): string {
  const name = [user.firstName, user.lastName].filter(Boolean).join(' ');
  return name || user.email;
}
