/**
 * The built-in demo content, in the import format (docs/import.md): a dozen experts across several
 * fields with most profile sections filled, posts and Q&A items with tags and SEO. Fed through the
 * same import code as a file would be.
 */

interface Person {
  key: string
  firstname: string
  lastname: string
  job_title: string
  department: string
  city: string
  country: string
  state: string
  field: string
  topics: string[]
  languages: string[]
  degree: [institution: string, degree: string, major: string, year: number]
  book?: string
  talk: string
  article: string
  outlet: string
}

const PEOPLE: Person[] = [
  {
    key: 'demo-ada-okafor',
    firstname: 'Ada',
    lastname: 'Okafor',
    job_title: 'Professor of Computational Biology',
    department: 'Biology',
    city: 'Toronto',
    country: 'CA',
    state: 'ON',
    field: 'Life sciences',
    topics: ['Genomics', 'Machine learning'],
    languages: ['English', 'Igbo'],
    degree: ['University of Lagos', 'PhD', 'Biochemistry', 2008],
    book: 'Reading the Genome',
    talk: 'What your DNA can and cannot tell you',
    article: 'Protein folding predictions in practice',
    outlet: 'Nature Methods',
  },
  {
    key: 'demo-mateo-garcia',
    firstname: 'Mateo',
    lastname: 'García',
    job_title: 'Director, Center for Energy Policy',
    department: 'Public Policy',
    city: 'Austin',
    country: 'US',
    state: 'TX',
    field: 'Energy',
    topics: ['Energy policy', 'Electric grids'],
    languages: ['English', 'Spanish'],
    degree: ['Universidad de Chile', 'PhD', 'Economics', 2006],
    book: 'Power Lines',
    talk: 'Keeping the lights on in a heat wave',
    article: 'Grid reliability after Winter Storm Uri',
    outlet: 'Energy Policy',
  },
  {
    key: 'demo-li-wei',
    firstname: 'Li',
    lastname: 'Wei',
    job_title: 'Associate Professor of Computer Science',
    department: 'Computer Science',
    city: 'Vancouver',
    country: 'CA',
    state: 'BC',
    field: 'Technology',
    topics: ['Artificial intelligence', 'Privacy'],
    languages: ['English', 'Mandarin'],
    degree: ['Tsinghua University', 'PhD', 'Computer Science', 2012],
    talk: 'How AI systems learn from your data',
    article: 'Differential privacy for the rest of us',
    outlet: 'Communications of the ACM',
  },
  {
    key: 'demo-sarah-cohen',
    firstname: 'Sarah',
    lastname: 'Cohen',
    job_title: 'Professor of Constitutional Law',
    department: 'Faculty of Law',
    city: 'Montréal',
    country: 'CA',
    state: 'QC',
    field: 'Law',
    topics: ['Constitutional law', 'Human rights'],
    languages: ['English', 'French', 'Hebrew'],
    degree: ['McGill University', 'LLD', 'Law', 2004],
    book: 'Charter Rights in Practice',
    talk: 'Courts and the notwithstanding clause',
    article: 'Judicial review in a polarized age',
    outlet: 'McGill Law Journal',
  },
  {
    key: 'demo-kwame-mensah',
    firstname: 'Kwame',
    lastname: 'Mensah',
    job_title: 'Senior Lecturer in Economics',
    department: 'Economics',
    city: 'Chicago',
    country: 'US',
    state: 'IL',
    field: 'Economics',
    topics: ['Inflation', 'Labour markets'],
    languages: ['English', 'Twi'],
    degree: ['University of Ghana', 'PhD', 'Economics', 2011],
    talk: 'Why prices rise and when they stop',
    article: 'Wage growth and inflation expectations',
    outlet: 'Journal of Monetary Economics',
  },
  {
    key: 'demo-ingrid-larsen',
    firstname: 'Ingrid',
    lastname: 'Larsen',
    job_title: 'Professor of Marine Biology',
    department: 'Ocean Sciences',
    city: 'Halifax',
    country: 'CA',
    state: 'NS',
    field: 'Environment',
    topics: ['Oceans', 'Fisheries'],
    languages: ['English', 'Norwegian'],
    degree: ['University of Bergen', 'PhD', 'Marine Biology', 2005],
    book: 'The Cold Water Coast',
    talk: 'The North Atlantic is changing fast',
    article: 'Cod recovery after the moratorium',
    outlet: 'ICES Journal of Marine Science',
  },
  {
    key: 'demo-priya-raman',
    firstname: 'Priya',
    lastname: 'Raman',
    job_title: 'Clinical Professor of Cardiology',
    department: 'Medicine',
    city: 'Boston',
    country: 'US',
    state: 'MA',
    field: 'Health',
    topics: ['Heart disease', 'Women in medicine'],
    languages: ['English', 'Tamil'],
    degree: ['Harvard Medical School', 'MD', 'Medicine', 2003],
    talk: 'Heart attacks look different in women',
    article: 'Sex differences in cardiac symptoms',
    outlet: 'The Lancet',
  },
  {
    key: 'demo-tomas-novak',
    firstname: 'Tomáš',
    lastname: 'Novák',
    job_title: 'Professor of European History',
    department: 'History',
    city: 'Ottawa',
    country: 'CA',
    state: 'ON',
    field: 'Humanities',
    topics: ['Central Europe', 'Cold War'],
    languages: ['English', 'Czech', 'German'],
    degree: ['Charles University', 'PhD', 'History', 2001],
    book: 'Behind the Curtain',
    talk: '1989 and what came after',
    article: 'Archives of the Prague Spring',
    outlet: 'Journal of Cold War Studies',
  },
  {
    key: 'demo-aiyana-redcloud',
    firstname: 'Aiyana',
    lastname: 'Redcloud',
    job_title: 'Assistant Professor of Indigenous Studies',
    department: 'Indigenous Studies',
    city: 'Winnipeg',
    country: 'CA',
    state: 'MB',
    field: 'Humanities',
    topics: ['Indigenous governance', 'Treaties'],
    languages: ['English', 'Cree'],
    degree: ['University of Manitoba', 'PhD', 'Native Studies', 2016],
    talk: 'Treaties as living agreements',
    article: 'Land-based education in the Prairies',
    outlet: 'Decolonization',
  },
  {
    key: 'demo-marco-rossi',
    firstname: 'Marco',
    lastname: 'Rossi',
    job_title: 'Professor of Civil Engineering',
    department: 'Engineering',
    city: 'Seattle',
    country: 'US',
    state: 'WA',
    field: 'Engineering',
    topics: ['Earthquakes', 'Infrastructure'],
    languages: ['English', 'Italian'],
    degree: ['Politecnico di Milano', 'PhD', 'Structural Engineering', 2007],
    talk: 'Will your bridge survive the big one?',
    article: 'Retrofitting schools for seismic safety',
    outlet: 'Earthquake Spectra',
  },
  {
    key: 'demo-hannah-schmidt',
    firstname: 'Hannah',
    lastname: 'Schmidt',
    job_title: 'Associate Professor of Psychology',
    department: 'Psychology',
    city: 'Calgary',
    country: 'CA',
    state: 'AB',
    field: 'Social sciences',
    topics: ['Sleep', 'Adolescent mental health'],
    languages: ['English', 'German'],
    degree: ['University of Heidelberg', 'PhD', 'Psychology', 2013],
    book: 'Tired Teens',
    talk: 'Why teenagers need more sleep',
    article: 'Screens, sleep and mood in adolescents',
    outlet: 'Sleep',
  },
  {
    key: 'demo-yusuf-haddad',
    firstname: 'Yusuf',
    lastname: 'Haddad',
    job_title: 'Professor of Political Science',
    department: 'Political Science',
    city: 'New York',
    country: 'US',
    state: 'NY',
    field: 'Politics',
    topics: ['Elections', 'Middle East'],
    languages: ['English', 'Arabic', 'French'],
    degree: ['American University of Beirut', 'PhD', 'Political Science', 2009],
    talk: 'How polls get elections wrong',
    article: 'Turnout and trust in new democracies',
    outlet: 'American Political Science Review',
  },
]

const DAY = 86_400
const BASE = 1_704_067_200 // 2024-01-01, so the demo content does not change between runs.
const slug = (p: Person) => p.key.replace(/^demo-/, '')
const site = 'https://experts.demo.example'
const cdn = 'https://cdn.demo.example'

/**
 * The demo's pictures, made and stored at seed time (src/demo/images.ts): each expert's portrait as a
 * file the import reads (by expert key, relative to the import's folder) and each post's stored image
 * URL (by post key). An expert or post without one has no picture rather than a broken one.
 */
export interface DemoPictures {
  portraits: ReadonlyMap<string, string>
  banners: ReadonlyMap<string, string>
}

const NO_PICTURES: DemoPictures = { portraits: new Map(), banners: new Map() }

/** The demo's spoken languages as the BCP 47 tags of the media fields. */
const LANGUAGE_TAGS: Record<string, string> = {
  Arabic: 'ar',
  Cree: 'cr',
  Czech: 'cs',
  English: 'en',
  French: 'fr',
  German: 'de',
  Hebrew: 'he',
  Igbo: 'ig',
  Italian: 'it',
  Mandarin: 'zh',
  Norwegian: 'no',
  Spanish: 'es',
  Tamil: 'ta',
  Twi: 'tw',
}

const TIME_ZONES: Record<string, string> = {
  Austin: 'America/Chicago',
  Boston: 'America/New_York',
  Calgary: 'America/Edmonton',
  Chicago: 'America/Chicago',
  Halifax: 'America/Halifax',
  Montréal: 'America/Toronto',
  'New York': 'America/New_York',
  Ottawa: 'America/Toronto',
  Seattle: 'America/Los_Angeles',
  Toronto: 'America/Toronto',
  Vancouver: 'America/Vancouver',
  Winnipeg: 'America/Winnipeg',
}

/** Two experts in three are available to journalists, so the media desk's filters find some and not all. */
function mediaFields(p: Person, index: number) {
  const timeZone = TIME_ZONES[p.city]
  return {
    media_available: index % 3 === 2 ? 0 : 1,
    interview_languages: p.languages.flatMap((language) => LANGUAGE_TAGS[language] ?? []),
    remote_ready: 1,
    studio_ready: index % 2,
    ...(timeZone ? { time_zone: timeZone } : {}),
  }
}

/** Whose portrait the demo draws: each expert's import key and name. */
export const DEMO_EXPERTS = PEOPLE.map((p) => ({ key: p.key, name: `${p.firstname} ${p.lastname}` }))

function expert(p: Person, index: number, pictures: DemoPictures) {
  const name = `${p.firstname} ${p.lastname}`
  const s = slug(p)
  const portrait = pictures.portraits.get(p.key)
  return {
    key: p.key,
    firstname: p.firstname,
    lastname: p.lastname,
    job_title: p.job_title,
    email: `${s.replace('-', '.')}@demo.example`,
    company: 'Demo University',
    department: p.department,
    phone_number: `+1 555 010 ${String(1000 + index * 7)}`,
    location_city: p.city,
    location_country: p.country,
    location_state: p.state,
    ...mediaFields(p, index),
    is_published: 1,
    sections: {
      ...(portrait ? { avatar: { file: portrait } } : {}),
      biography: {
        biography: `${name} is ${p.job_title.toLowerCase().startsWith('director') ? 'the' : 'a'} ${p.job_title} at Demo University, working on ${p.topics.join(' and ').toLowerCase()}.\n${p.firstname} speaks often to journalists and community groups about this work.`,
      },
      tagline: { tagline: `${p.field} expert on ${p.topics[0]?.toLowerCase()}` },
      availability: {
        availability_keynote: 1,
        availability_moderator: index % 2,
        availability_panelist: 1,
        availability_workshop: (index + 1) % 2,
        availability_host_mc: 0,
        availability_appearance: 1,
        availability_corptraining: index % 3 === 0 ? 1 : 0,
        availability_open: 1,
      },
      fee: {
        fee_min: 1000 + index * 250,
        fee_max: 5000 + index * 500,
        currency: p.country === 'CA' ? 'CAD' : 'USD',
      },
      social: {
        linkedin: `https://www.linkedin.com/in/${s}`,
        twitter: `https://twitter.com/${s.replace('-', '')}`,
        website: `${site}/${s}`,
      },
      seo: {
        title: `${name}, ${p.field.toLowerCase()} expert | Demo University`,
        description: `${name} (${p.job_title}) comments on ${p.topics.join(', ').toLowerCase()}.`,
        keywords: p.topics.join(', '),
        canonical_url: `${site}/${s}`,
      },
      cv: { url: `${site}/${s}/cv`, document_url: `${cdn}/cv/${s}.pdf` },
      category: [{ name: p.field }],
      topic: p.topics.map((topic) => ({ name: topic })),
      language: p.languages.map((language) => ({ name: language })),
      industry: [{ name: 'Higher Education' }],
      profiletype: [{ name: 'Faculty' }],
      tag: [{ tag: p.field }, ...p.topics.map((topic) => ({ tag: topic }))],
      education: [{ institution: p.degree[0], degree: p.degree[1], major: p.degree[2], date: p.degree[3] }],
      article: [
        {
          key: `${s}-article-1`,
          title: p.article,
          publisher: p.outlet,
          authors: name,
          date: BASE - (index + 3) * 30 * DAY,
          url: `https://doi.example/10.5555/${s}`,
        },
      ],
      ...(p.book
        ? {
            book: [
              {
                title: p.book,
                publisher: 'Demo University Press',
                authors: name,
                date: BASE - (index + 10) * 60 * DAY,
                url: `https://press.demo.example/${s}`,
              },
            ],
          }
        : {}),
      sampletalk: [
        {
          title: p.talk,
          description: `A 45-minute talk for general audiences on ${p.topics[0]?.toLowerCase()}.`,
        },
      ],
      mediaappearance: [
        {
          title: `${p.firstname} ${p.lastname} on ${p.topics[0]?.toLowerCase()}`,
          organization: index % 2 ? 'CBC Radio' : 'The Globe and Mail',
          type: index % 2 ? 'radio' : 'print',
          url: `https://news.demo.example/${s}`,
          date: BASE + index * 9 * DAY,
        },
      ],
      eventappearance: [
        {
          title: p.talk,
          event_name: `${p.field} Forum ${2024 + (index % 2)}`,
          location: p.city,
          date: BASE + (index + 5) * 20 * DAY,
          time_zone: p.country === 'CA' ? 'America/Toronto' : 'America/New_York',
          time: '10:00',
        },
      ],
      link: [{ name: 'Faculty page', url: `https://demo.example/faculty/${s}` }],
      affiliation: [
        { name: `${p.country === 'CA' ? 'Canadian' : 'American'} ${p.field} Association`, notes: 'Member' },
      ],
      course: [{ title: `Introduction to ${p.topics[0]}`, details: 'Undergraduate course, fall term.' }],
      researchfocus: [
        {
          title: p.topics[0] ?? p.job_title,
          subtitle: p.topics[1] ?? null,
          details: `Current work on ${p.topics.join(' and ').toLowerCase()}.`,
        },
      ],
      researchgrant: [
        {
          title: `${p.topics[0]} research program`,
          organization: p.country === 'CA' ? 'SSHRC' : 'NSF',
          amount: 150_000 + index * 10_000,
          currency: p.country === 'CA' ? 'CAD' : 'USD',
          date: BASE - (index + 1) * 90 * DAY,
        },
      ],
      video: [{ title: `${name}: research in two minutes`, url: `${cdn}/video/${s}.mp4` }],
      audio: [{ title: `${p.talk} (radio)`, url: `${cdn}/audio/${s}.mp3`, duration: 900 + index * 60 }],
      youtube: [
        {
          title: `${p.talk} (lecture)`,
          watch_page_url: `https://www.youtube.com/watch?v=demo${String(index).padStart(7, '0')}`,
          video_id: `demo${String(index).padStart(7, '0')}`,
        },
      ],
      ...(index % 3 === 0
        ? {
            podchaser: [
              { title: `Ideas podcast: ${p.topics[0]}`, url: `https://www.podchaser.example/episodes/${s}` },
            ],
          }
        : {}),
      document: [{ title: `${p.topics[0]} fact sheet`, url: `${cdn}/docs/${s}-facts.pdf` }],
      testimonial: [
        {
          name: 'Jordan Lee',
          title: 'Producer',
          company: 'CBC Radio',
          recommendation: `${p.firstname} explains ${p.topics[0]?.toLowerCase()} clearly and is always ready on deadline.`,
          date: BASE + index * DAY,
        },
      ],
    },
  }
}

const POSTS = [
  {
    key: 'demo-post-ai-health',
    title: 'What AI can and cannot do for your health',
    experts: ['demo-li-wei', 'demo-priya-raman', 'demo-ada-okafor'],
    tags: ['Artificial intelligence', 'Health'],
    text: 'Hospitals are testing AI tools that read scans, predict heart trouble and sift genomes. Three Demo University experts explain where these tools help, where they fail and what patients should ask.',
  },
  {
    key: 'demo-post-grid',
    title: 'Why the grid struggles in extreme weather',
    experts: ['demo-mateo-garcia', 'demo-marco-rossi'],
    tags: ['Energy', 'Infrastructure'],
    text: 'Heat waves and winter storms push electric grids to their limits. An energy economist and a civil engineer on what keeps the lights on and what it costs to harden the system.',
  },
  {
    key: 'demo-post-oceans',
    title: 'The North Atlantic is warming faster than expected',
    experts: ['demo-ingrid-larsen'],
    tags: ['Environment', 'Oceans'],
    text: 'Sea surface temperatures off Nova Scotia broke records again this year. Marine biologist Ingrid Larsen on what it means for fisheries and coastal communities.',
  },
  {
    key: 'demo-post-sleep',
    title: 'Teenagers, screens and sleep',
    experts: ['demo-hannah-schmidt'],
    tags: ['Sleep', 'Mental health'],
    text: 'Most teenagers sleep less than they need. Psychologist Hannah Schmidt on the science and on what families can change tonight.',
    noSeo: true,
  },
  {
    key: 'demo-post-elections',
    title: 'Reading the polls in an election year',
    experts: ['demo-yusuf-haddad', 'demo-kwame-mensah'],
    tags: ['Elections', 'Economics'],
    text: 'Polls move markets and headlines. Two experts on how to read them, and how the economy shapes the vote.',
  },
]

const QUESTIONS = [
  {
    key: 'demo-q-inflation',
    question: 'When will grocery prices come down?',
    answers: [
      [
        'demo-kwame-mensah',
        'Prices rarely fall back; what slows is the rate at which they rise. Wage growth will catch up over the next two years.',
      ],
    ],
    tags: ['Economics', 'Inflation'],
  },
  {
    key: 'demo-q-quake',
    question: 'Are older schools safe in an earthquake?',
    answers: [
      [
        'demo-marco-rossi',
        'Many schools built before 1990 need seismic retrofits; provinces and states have programs to fund them.',
      ],
    ],
    tags: ['Earthquakes', 'Infrastructure'],
  },
  {
    key: 'demo-q-treaties',
    question: 'What does it mean that treaties are living agreements?',
    answers: [
      [
        'demo-aiyana-redcloud',
        'Treaties set up relationships with ongoing obligations on both sides, not one-time land sales.',
      ],
      [
        'demo-sarah-cohen',
        'Canadian courts have recognized that treaty rights evolve and must be interpreted generously.',
      ],
    ],
    tags: ['Indigenous governance', 'Law'],
  },
  {
    key: 'demo-q-heart',
    question: 'Do heart attack symptoms differ between women and men?',
    answers: [
      [
        'demo-priya-raman',
        'Yes. Women more often have shortness of breath, nausea or back pain instead of crushing chest pain.',
      ],
    ],
    tags: ['Health', 'Heart disease'],
    noSeo: true,
  },
]

const paragraphs = (text: string) =>
  `<p>${text}</p><p>The experts in this post are available for interviews, panels and briefings: contact the media relations office to arrange one.</p>`

/** Whose image the demo draws: each post's import key and title. */
export const DEMO_POSTS = POSTS.map((post) => ({ key: post.key, title: post.title }))

/** The demo organization's content in the import format. */
export function demoDataset(pictures: DemoPictures = NO_PICTURES) {
  return {
    organization: {
      description:
        'Demo University is a fictional research university used to show the Expert Directory Service.',
      website: 'https://demo.example',
      location_city: 'Toronto',
      location_state: 'ON',
      location_country: 'CA',
      twitter: 'https://twitter.com/demouniversity',
      linkedin: 'https://www.linkedin.com/school/demo-university',
      youtube: 'https://www.youtube.com/@demouniversity',
    },
    experts: PEOPLE.map((p, index) => expert(p, index, pictures)),
    spotlights: POSTS.map((post, index) => ({
      key: post.key,
      title: post.title,
      html: paragraphs(post.text),
      ...(pictures.banners.has(post.key) ? { featured_image: pictures.banners.get(post.key) } : {}),
      published: 1,
      published_date: BASE + (index + 1) * 14 * DAY,
      experts: post.experts,
      tags: post.tags,
      ...(post.noSeo
        ? {}
        : {
            seo: {
              title: `${post.title} | Demo University Experts`,
              description: post.text.slice(0, 150),
              canonical_url: `${site}/posts/${post.key.replace(/^demo-post-/, '')}`,
            },
          }),
    })),
    questions: QUESTIONS.map((question, index) => ({
      key: question.key,
      question: question.question,
      details: '<p>A question sent in by a reader.</p>',
      published: 1,
      published_date: BASE + (index + 1) * 21 * DAY,
      answers: question.answers.map(([expertKey, answer], position) => ({
        key: expertKey,
        expert: expertKey,
        answer: `<p>${answer}</p>`,
        created: BASE + (index + 1) * 21 * DAY - (position + 1) * 3600,
      })),
      tags: question.tags,
      ...(question.noSeo ? {} : { seo: { keywords: question.tags.join(', ') } }),
    })),
  }
}
