/**
 * What each part of a story does, as sentence tables: the introduction sets the scene, the
 * development escalates, the climax peaks and the conclusion resolves. Narration is in the
 * present tense because outline key points usually are ("the lamp fails"), so they slot in.
 *
 * Placeholders: {hero} {ally} {third} {cast} {place} {time} {focus} {anchor}.
 */
import type { SectionName } from '@switchyard/contracts';

export interface SectionPhrases {
  /** The paragraph-opening sentence that announces what kind of section this is. */
  readonly open: readonly string[];
  /** How the whole cast is brought on stage; {cast} lists everyone's name. */
  readonly cast: readonly string[];
  /** Lead-ins for key points; the style decides how they frame the point. */
  readonly leads: readonly string[];
  /** What a character does right after a key point lands. */
  readonly reactions: readonly string[];
  /** Sentences of atmosphere and motion that keep the section in its register. */
  readonly ambient: readonly string[];
  /** What the rest of the cast is doing; {third} is the third person, or the ally again. */
  readonly people: readonly string[];
  /** Sentences about the story's own subject, so the topic stays in view. */
  readonly topical: readonly string[];
  readonly close: readonly string[];
  readonly conflict: string;
  readonly resolution: string;
  readonly theme: string;
}

/** The introduction meets each person properly, with their role, before anyone is called by first name. */
export const INTRO_CAST = {
  hero: ['{intro} has kept to the same habits for as long as anyone can remember.', '{intro} has a reputation for patience, and for noticing what others miss.'],
  ally: ['{intro} is the nearest thing {hero} has to a confidant.', '{intro} drops by most evenings, usually with news and rarely with good news.'],
  others: ['{intro} keeps a careful distance, watching more than speaking.', '{intro} turns up when least expected and leaves before anyone can ask why.'],
} as const;

export const SECTION_PHRASES: Readonly<Record<SectionName, SectionPhrases>> = {
  introduction: {
    open: [
      '{time} settles over {place}, and nothing there seems to have changed in years.',
      'At {place}, in {time}, the days begin the same way: with the weather, the chores and a long look at the horizon.',
      'Few people travel as far as {place}, and in {time} even fewer bother.',
    ],
    cast: ['{cast} all have their places here, and their own reasons for staying.'],
    leads: ['At first', 'Early on', 'To begin with', 'In those first days'],
    reactions: [
      '{hero} files it away without fuss, the way one notes a change in the wind.',
      'It is a small thing, and {hero} almost lets it pass.',
      '{ally} hears about it second-hand and shrugs, which only makes {hero} more curious.',
      'Nobody else at {place} seems to think it worth a second glance.',
      'Later, {hero} will remember this as the first loose thread.',
      'For now, it goes onto the long list of things {hero} means to look into.',
      '{hero} says nothing about it over supper, but the thought stays.',
      'It fits, oddly well, with everything else {hero} has been noticing lately.',
    ],
    ambient: [
      'The routine has its own comfort: the same path in the morning, the same chair at night, the same questions left unasked.',
      'People here measure time by small rituals rather than by clocks.',
      '{ally} likes to say that nothing at {place} ever happens, and for a long time that has been true.',
      '{hero} knows every sound the house makes and most of the ones the weather makes.',
      'If anyone asked, {hero} would say that life here is quiet by choice.',
      'The mornings are cold, and the work does not wait for them to warm.',
      'A list of small repairs is pinned by the door, most of them crossed out.',
      'Visitors are rare enough that each one is discussed for a week.',
    ],
    people: [
      '{ally} has known {hero} long enough to read a silence correctly.',
      '{third} keeps odd hours, and nobody asks why.',
      'Between {hero} and {ally} there is an old, unspoken agreement about what not to discuss.',
      '{third} is the one who brings the news, whether anyone wants it or not.',
    ],
    topical: [
      'Everything about {focus} seems settled, filed away, finished.',
      'Nobody has asked about {focus} in years, and {hero} has not volunteered.',
      'Life here has always been arranged around {anchor}, in ways too old to question.',
      'If {focus} ever mattered to anyone else, they stopped saying so long ago.',
    ],
    close: [
      'By the end of the week, {hero} can no longer treat {focus} as simply part of the furniture.',
      'That night, for the first time in a long while, {hero} does not sleep well.',
      'Something has started, though no one at {place} could yet say what.',
    ],
    conflict: 'Even now, the first outline of trouble can be seen: {conflict}.',
    resolution: '{hero} cannot know it yet, but the way out is already hidden in plain sight: {resolution}.',
    theme: 'Underneath the quiet runs a simple idea: {theme}.',
  },
  development: {
    open: [
      'The quiet does not last.',
      'Within days, the small questions have grown teeth.',
      'What began as curiosity turns into something much harder to put down.',
    ],
    cast: ['{cast} are in it together now, whether or not they chose to be.'],
    leads: ['Soon', 'Before long', 'Then', 'Not long after'],
    reactions: [
      'Each answer opens two new questions, and {hero} chases both.',
      '{ally} argues for leaving it alone; {hero} does not listen.',
      'The pressure builds a little more with every step.',
      'It costs {hero} a night\'s sleep and most of {ally}\'s patience.',
      'There is no going back to the old routine after this.',
      'Someone, somewhere, clearly wants this kept quiet.',
      '{hero} begins to keep notes, and then to hide them.',
      'The stakes are no longer abstract, and everyone can feel it.',
    ],
    ambient: [
      'The weather turns, as if it has been listening.',
      'Doors that used to stand open at {place} are now shut by evening.',
      '{ally} takes to checking the road twice before saying anything important.',
      'Every trip out takes longer and comes back with less certainty.',
      'Old friendships start to show their seams.',
      'Meals are eaten standing up now, when they are eaten at all.',
      'A message arrives with no name on it, and nobody admits to sending it.',
      'Sleep comes late and leaves early.',
    ],
    people: [
      '{third} hears more than anyone realises and repeats less than anyone fears.',
      '{ally} and {hero} argue in low voices, careful not to be overheard.',
      '{third} offers help, then takes it back, then offers it again.',
      'For the first time, {hero} wonders whether {ally} can be trusted.',
    ],
    topical: [
      'The more {hero} learns about {focus}, the less simple any of it looks.',
      'Every new fact about {focus} seems to belong to a different story.',
      'Someone has been asking questions about {anchor}, and not kindly.',
      'What {hero} thought was known about {focus} turns out to be half a rumour.',
    ],
    close: [
      'By the time the first real storm arrives, {hero} has gone too far to turn around.',
      'The trail ends at a choice, and {hero} can see it coming.',
      'Everything now points toward a single night, and {hero} knows it.',
    ],
    conflict: 'At the heart of it lies the real conflict: {conflict}.',
    resolution: 'Almost unnoticed, the means of ending it slips into view: {resolution}.',
    theme: 'The question underneath grows harder to ignore: {theme}.',
  },
  climax: {
    open: ['It all comes down to one night.', 'When it finally happens, it happens fast.', 'There is no more time to prepare.'],
    cast: ['{cast} end up in the same place at the same hour, and no one is calm.'],
    leads: ['Then, all at once', 'At the worst possible moment', 'Now', 'In the middle of it all'],
    reactions: [
      'There is no time to weigh it; {hero} simply acts.',
      '{ally} shouts something that the wind takes away.',
      'For a moment everything hangs in the balance.',
      'Every choice {hero} has made so far leads to this one.',
      'Fear arrives late, after the decision is already made.',
      'It is the hardest thing {hero} has ever done, and it takes seconds.',
      'Nobody moves, and then everybody does.',
      'Whatever happens next cannot be undone.',
    ],
    ambient: [
      'The noise is enormous, and then, suddenly, it is not.',
      'Lights fail one after another across {place}.',
      '{hero}\'s hands are shaking, but they do what they must.',
      'Even {ally}, who always has an answer, is silent.',
      'Seconds stretch until they feel like hours.',
      'Somewhere a window breaks, and no one turns to look.',
      'The cold is forgotten; there is only the next step, and the one after.',
      'Every sound seems to arrive a moment too late.',
    ],
    people: [
      '{third} arrives at the last possible moment, out of breath and out of excuses.',
      '{ally} does the one thing {hero} asked not to be done, and it is the right thing.',
      'For once, {hero} and {ally} move as one.',
      '{third} chooses a side, and everyone sees which.',
    ],
    topical: [
      'The truth about {focus} is out now, and it will not go back in.',
      'Everything {hero} built around {anchor} is suddenly at risk.',
      'All that has been said about {focus} is tested in a single hour.',
      'Whatever {focus} meant before, it means something else now.',
    ],
    close: [
      'When it is over, the silence is the loudest thing {hero} has ever heard.',
      'Then the worst has passed, and what is left is the long work of understanding it.',
      'Afterwards, no one can say exactly when the turn came, only that it did.',
    ],
    conflict: 'Everything that divided them is laid bare at once: {conflict}.',
    resolution: 'And in the middle of the chaos, the way out shows itself: {resolution}.',
    theme: 'In that moment the whole story narrows to one idea: {theme}.',
  },
  conclusion: {
    open: [
      'Morning comes to {place} the way it always has, which feels almost rude.',
      'In the weeks that follow, life slowly finds its shape again.',
      'The season turns, and with it, something in {hero}.',
    ],
    cast: ['{cast} are still here when it is over, though none of them is quite who they were.'],
    leads: ['In the end', 'Afterwards', 'At last', 'When the dust settles'],
    reactions: [
      '{hero} can look at it calmly now, which is its own kind of ending.',
      'It no longer frightens anyone; it simply belongs to the story.',
      '{ally} brings it up once, gently, and then lets it rest.',
      'What once felt like a burden now feels like a trust.',
      'There is peace in that, and a little sorrow.',
      'It is enough, and {hero} is surprised to find it so.',
      'Nothing is exactly as before, and that is how it should be.',
      'The loose threads are tied, or at least tied well enough.',
    ],
    ambient: [
      'The routine returns, but it is lighter now.',
      'People at {place} tell the story differently, each version a little kinder than the last.',
      '{hero} keeps one small thing from those days within reach, as a reminder.',
      'Some questions stay open, and {hero} is at peace with that.',
      'The first fine day in weeks brings everyone outside.',
      'Repairs are made, debts are paid, and a few apologies are finally spoken.',
      'The evenings grow longer, and nobody minds.',
      'A new habit takes the place of an old fear.',
    ],
    people: [
      '{ally} visits more often than before, and stays longer.',
      '{third} leaves for a while and comes back, which says more than any speech.',
      '{hero} and {ally} find they can laugh about parts of it now.',
      'Even {third} admits, eventually, that it turned out well.',
    ],
    topical: [
      'Even the memory of {focus} sits differently in the world now.',
      'What remains of {focus} is kept carefully, the way one keeps a promise.',
      'Life around {anchor} goes on, but it is no longer the same life.',
      'People speak of {focus} more gently now.',
    ],
    close: [
      '{hero} looks out over {place} one last time that evening and, at last, feels at home.',
      'And so the story closes where it began, only everyone in it has changed.',
      'What remains is quiet, and for the first time, the quiet is enough.',
    ],
    conflict: 'What once tore at them is settled now, though no one forgets it: {conflict}.',
    resolution: 'The way out, when it came, was the one that had been waiting all along: {resolution}.',
    theme: 'If there is a lesson in all of it, it is this: {theme}.',
  },
};
