import type { Kysely } from 'kysely'
import type { DB } from '../db/schema.js'
import { createExpert, updateExpert } from '../experts/service.js'

export interface SeededContent {
  experts: string[]
  spotlights: number[]
  questions: number[]
}

const EXPERTS = [
  {
    firstname: 'Ada',
    lastname: 'Okafor',
    job_title: 'Professor of Computational Biology',
    email: 'ada.okafor@demo.example',
    company: 'Demo University',
    department: 'Biology',
    location_city: 'Toronto',
    location_country: 'CA',
    location_state: 'ON',
  },
  {
    firstname: 'Mateo',
    lastname: 'García',
    job_title: 'Director, Center for Energy Policy',
    email: 'mateo.garcia@demo.example',
    company: 'Demo University',
    department: 'Public Policy',
    location_city: 'Austin',
    location_country: 'US',
    location_state: 'TX',
  },
]

/** Fills an organization with demo content; returns what it created. */
export async function seedDemo(db: Kysely<DB>, orgId: number, now: number): Promise<SeededContent> {
  const experts: string[] = []
  for (const expert of EXPERTS) {
    const username = await createExpert(db, orgId, expert, now)
    await updateExpert(db, orgId, username, { is_published: 1 }, now)
    experts.push(username)
  }
  return { experts, spotlights: [], questions: [] }
}
