/**
 * Word lists the offline author draws from. Kept apart from the logic so the logic stays short
 * and the lists can grow without touching it.
 */

/** Words that carry no topic of their own; they never become key words. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but nor so yet of in on at to for from by with without about into onto over under ' +
    'after before during through between among against within upon across behind beyond near ' +
    'who whom whose which that what when where why how whoever this these those there here ' +
    'is are was were be been being am do does did has have had having can could will would shall ' +
    'should may might must not no its it his her their our your my me him them they we you she he i ' +
    'as than then very just only also even still ever never once all any some each every most more ' +
    'story tale about using one two'
  ).split(' '),
);

/** Nouns for people: a topic that names one hands the protagonist a role ("a lighthouse keeper"). */
export const PERSON_NOUNS: ReadonlySet<string> = new Set(
  (
    'keeper detective girl boy woman man child children king queen prince princess witch wizard ' +
    'robot android sailor pilot soldier farmer teacher student doctor nurse painter poet writer ' +
    'musician singer dancer baker thief knight monk nun priest captain explorer inventor engineer ' +
    'scientist astronaut fisherman fisher hunter merchant orphan widow widower grandmother grandfather ' +
    'mother father sister brother daughter son friend stranger traveler traveller spy clerk ' +
    'librarian archivist gardener miner smith blacksmith cook chef courier postman postwoman ' +
    'mapmaker cartographer ranger shepherd beekeeper clockmaker tailor healer guard runner climber ' +
    'diver driver photographer journalist reporter mayor ghost dragon fox cat dog bear wolf owl'
  ).split(' '),
);

export const FIRST_NAMES: readonly string[] = [
  'Mara', 'Tobias', 'Ines', 'Owen', 'Lena', 'Jonah', 'Priya', 'Elias', 'Noor', 'Felix', 'Ada',
  'Rafael', 'Hana', 'Silas', 'Greta', 'Malik', 'Iris', 'Casimir', 'Wren', 'Anselm', 'Thea', 'Dmitri',
  'Sunniva', 'Caleb',
];

export const LAST_NAMES: readonly string[] = [
  'Ellison', 'Hartley', 'Okafor', 'Varga', 'Lindqvist', 'Moreau', 'Castell', 'Nakamura', 'Brennan',
  'Quill', 'Adeyemi', 'Soriano', 'Halloran', 'Petrov', 'Whitlock', 'Amsel', 'Dunmore', 'Ferreira',
  'Kowalczyk', 'Rask', 'Tamsin', 'Abernathy', 'Mendel', 'Ostrander',
];

/** Roles for the rest of the cast; ordinary trades, so they sit in most settings without strain. */
export const ROLES: readonly string[] = [
  'a cartographer', 'a ferry pilot', 'a schoolteacher', 'an archivist', 'a radio operator',
  'a botanist', 'a night nurse', 'a clockmaker', 'a harbour clerk', 'a retired surveyor',
  'a bookbinder', 'a courier', 'a stonemason', 'a translator', 'a village doctor', 'a photographer',
  'a locksmith', 'an apprentice baker', 'a museum guard', 'a weather observer',
];

/** Places and times that fit almost any story, used when the topic names none. */
export const SETTINGS: readonly string[] = [
  'the edge of town', 'the old quarter', 'a narrow house above the water', 'the end of the coast road',
  'a room at the top of the stairs', 'the last stop on the line', 'a town that maps forget',
  'the quiet side of the river', 'a street of shuttered shops', 'the high ground past the orchards',
];

export const TIMES: readonly string[] = [
  'late autumn', 'the first week of winter', 'a wet spring', 'the end of a long summer',
  'the weeks before the thaw', 'a season of early dark',
];

/**
 * Facets a piece of research can take on a topic. A result's title is a facet label and the
 * topic ("open questions: a lighthouse keeper who…"), so the outline can tell the two apart.
 */
export interface Facet {
  readonly key: string;
  readonly titles: readonly string[];
  readonly snippets: readonly string[];
}

export const FACETS: readonly Facet[] = [
  {
    key: 'origins',
    titles: ['origins and early accounts', 'where it began'],
    snippets: ['Accounts of {subject} reach back further than most people expect, and the earliest ones already hint at why {focus} mattered to those who were there.'],
  },
  {
    key: 'how-it-works',
    titles: ['the daily craft', 'how it works in practice'],
    snippets: ['Day to day, {subject} runs on routine: small habits around {anchor} that outsiders rarely notice but that hold everything together.'],
  },
  {
    key: 'people',
    titles: ['the people involved', 'who keeps it going'],
    snippets: ['Behind {subject} stand a few people whose choices decide what happens to {focus}; their loyalties are rarely as simple as they look.'],
  },
  {
    key: 'turning-point',
    titles: ['a turning point', 'the moment things changed'],
    snippets: ['There is usually one moment when {subject} stops being ordinary, often when something about {focus} can no longer be ignored.'],
  },
  {
    key: 'open-questions',
    titles: ['open questions', 'what is still unknown'],
    snippets: ['Much about {subject} remains unsettled: no one agrees on the true meaning of {focus}, and the records leave gaps that invite a story.'],
  },
  {
    key: 'misconceptions',
    titles: ['common misconceptions', 'myths and facts'],
    snippets: ['People often picture {subject} as quaint or simple; the closer accounts show how much skill and stubbornness it takes to look after {anchor}.'],
  },
  {
    key: 'places',
    titles: ['places and landscapes', 'where it happens'],
    snippets: ['The setting shapes {subject}: isolated places, long distances and bad weather make every link to {focus} count for more.'],
  },
  {
    key: 'stakes',
    titles: ['what is at stake', 'why it matters'],
    snippets: ['What is at stake in {subject} is larger than it seems: lose {focus}, and a whole web of memory and obligation goes with it.'],
  },
  {
    key: 'sensory',
    titles: ['sights and sounds', 'the texture of daily life'],
    snippets: ['Descriptions of {subject} return to the same details again and again: weather, worn objects, and the particular weight of {focus}.'],
  },
  {
    key: 'legacy',
    titles: ['legacy and memory', 'what it leaves behind'],
    snippets: ['Long after the events, {subject} is remembered through {focus}, and each retelling adds something the first witnesses never said.'],
  },
];
