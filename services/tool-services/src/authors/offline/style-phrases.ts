/**
 * How a style changes the prose: the frame a key point is set in and the sentences of texture
 * around it. Suspenseful writing breaks into fragments, humorous writing makes asides, lyrical
 * writing stretches into cadence, concise writing says the fact and stops.
 *
 * Frames take {lead} (from the section), {kp} (the key point, mid-sentence case) and {hero}.
 * There are eight, and each section starts two further along a per-story shuffle, so the
 * sections of one story rarely frame their points the same way.
 */
export type StyleName = 'descriptive' | 'suspenseful' | 'humorous' | 'lyrical' | 'concise' | 'neutral';

export interface StylePhrases {
  /** Eight frames for setting a key point into a sentence. */
  readonly frames: readonly string[];
  /** Twelve sentences of texture; each of the four sections takes its own three, so a story never repeats one. */
  readonly ambient: readonly string[];
  /** Words per section this style aims for; concise sits at the short end. */
  readonly target: readonly [number, number];
}

const ALIASES: Readonly<Record<string, StyleName>> = {
  descriptive: 'descriptive', vivid: 'descriptive',
  suspenseful: 'suspenseful', suspense: 'suspenseful', thriller: 'suspenseful', tense: 'suspenseful',
  humorous: 'humorous', humourous: 'humorous', humor: 'humorous', humour: 'humorous', funny: 'humorous', comic: 'humorous',
  lyrical: 'lyrical', poetic: 'lyrical',
  concise: 'concise', terse: 'concise', minimal: 'concise', brief: 'concise',
};

export function styleOf(style: string): StyleName {
  return ALIASES[style.trim().toLowerCase()] ?? 'neutral';
}

export const STYLE_PHRASES: Readonly<Record<StyleName, StylePhrases>> = {
  descriptive: {
    frames: [
      '{lead}, in the thin grey light, one thing becomes plain: {kp}.',
      '{lead}, with rain ticking against the glass, the detail stands out sharply: {kp}.',
      '{lead}, under a sky the colour of pewter, there it is: {kp}.',
      '{lead}, while the kettle ticks as it cools, the thing is noticed: {kp}.',
      '{lead}, in the smell of damp wool and lamp oil, it is unmistakable: {kp}.',
      '{lead}, by the low gold light of late afternoon, it shows itself: {kp}.',
      '{lead}, as frost feathers the glass, the truth is laid out plainly: {kp}.',
      '{lead}, among the creak of boards and the sigh of the wind: {kp}.',
    ],
    ambient: [
      'Rain beads on the windows and runs in slow, crooked lines down the glass.',
      'The air at {place} smells of wet stone, woodsmoke and something older underneath.',
      'Light falls in long amber bars across the floorboards, catching the dust as it drifts.',
      'Every surface seems to hold a memory: a scratch in the table, a faded ribbon, a chipped blue cup.',
      'Outside, the wind worries at the shutters like a patient animal.',
      '{hero}\'s coat still smells of the cold, heavy with the damp of the long walk back.',
      'Far off, a bell rings twice and then seems to think better of it.',
      'The colours of {time} are muted here: slate, rust and the soft green of lichen.',
      'Steam curls from a cup left too long on the sill.',
      'The floor is gritty with sand carried in on a dozen pairs of boots.',
      'A lamp throws a warm, uneven circle that the dark presses against from every side.',
      'Frost has drawn ferns across the lower panes of every window.',
    ],
    target: [380, 460],
  },
  suspenseful: {
    frames: [
      '{lead}. A pause. Then: {kp}.',
      '{lead}, just when it seems safe: {kp}.',
      '{lead}. No warning. Only this: {kp}.',
      '{lead}. Too quiet. And then: {kp}.',
      '{lead}. A heartbeat. Another. Then: {kp}.',
      '{lead}, without a sound: {kp}.',
      '{lead}. Nobody breathes. Then it comes: {kp}.',
      '{lead}. Something shifts. {hero} sees it: {kp}.',
    ],
    ambient: [
      'Something moves at the edge of sight. Then nothing.',
      'A door clicks shut somewhere in the house, though no one is near it.',
      '{hero} counts the seconds. Four. Five. Still nothing.',
      'The silence is wrong, and {hero} knows it.',
      'Footsteps on the path outside stop just short of the door.',
      'Who else knows? The question will not go away.',
      '{ally} starts to speak, then stops. Listening.',
      'The lamp gutters, steadies, gutters again.',
      'A shape on the road. Gone when {hero} looks again.',
      'Someone has been here. The chair is not where it was.',
      'A knock. Then another. Then none.',
      'There is a smell of smoke, faint, from nowhere anyone can find.',
    ],
    target: [340, 430],
  },
  humorous: {
    frames: [
      '{lead} (and nobody had ordered this): {kp}.',
      '{lead}, in what can only be described as poor timing: {kp}.',
      '{lead}, because the universe has a sense of humour: {kp}.',
      '{lead}, right on schedule for maximum inconvenience: {kp}.',
      '{lead}, as if anyone needed more excitement: {kp}.',
      '{lead}, to nobody\'s delight: {kp}.',
      '{lead}, in a plot twist no one asked for: {kp}.',
      '{lead}, with the timing of a badly rehearsed play: {kp}.',
    ],
    ambient: [
      '{ally} insists this is all perfectly normal, which is exactly what people say when it is not.',
      'The kettle, as usual, has opinions and voices them loudly.',
      '{hero} makes a mental note to complain to someone, once it is clear who is in charge.',
      'A gull watches the whole affair with the air of a disappointed inspector.',
      'There is a plan, technically, if a plan can be written on the back of a receipt.',
      '{hero} decides that panicking can wait until after tea.',
      'Nobody at {place} has ever been accused of overreacting, and nobody intends to start now.',
      'It is, {ally} notes, a very bad week to have run out of biscuits.',
      '{third} offers advice, none of it useful and all of it confident.',
      'The official procedure, {hero} discovers, consists mostly of a shrug.',
      'A cat wanders through, inspects the situation and leaves unimpressed.',
      '{hero} suspects this will all end up as an anecdote, probably at {hero}\'s expense.',
    ],
    target: [340, 430],
  },
  lyrical: {
    frames: [
      '{lead}, soft as tide-water finding its way in: {kp}.',
      '{lead}, and the hour leans close to listen: {kp}.',
      '{lead}, the way a song remembers its first note: {kp}.',
      '{lead}, like a lantern lifted in the dark: {kp}.',
      '{lead}, as quietly as snow settles: {kp}.',
      '{lead}, the way rivers find the sea: {kp}.',
      '{lead}, and the world holds its breath for it: {kp}.',
      '{lead}, in the slow gold of evening: {kp}.',
    ],
    ambient: [
      'The light goes out along the horizon and comes back, goes out and comes back, like breath.',
      'Evening gathers in the corners of {place} and hums there, low and tender.',
      'Somewhere between the wind and the silence there is a kind of music.',
      '{hero} carries the day like a cupped flame, careful not to spill it.',
      'The river keeps its own slow counsel, and the stars keep theirs.',
      'Memory moves through the rooms like a tide, touching everything and keeping nothing.',
      'Every window holds a small square of sky, and every sky holds a question.',
      'The hours fold into one another like the pages of an old letter.',
      'Hope arrives the way dawn does, grey first, then gold.',
      'The wind writes its long sentences across the grass and erases them.',
      'Even the stones seem to be remembering something.',
      'There is a hush between heartbeats, and {hero} lives in it a while.',
    ],
    target: [380, 460],
  },
  concise: {
    frames: [
      '{lead}: {kp}.',
      '{lead}, plainly: {kp}.',
      '{lead}, the fact: {kp}.',
      '{lead}, briefly: {kp}.',
      '{lead}, no more than this: {kp}.',
      '{lead}, in short: {kp}.',
      '{lead}, simply put: {kp}.',
      '{lead}, one thing: {kp}.',
    ],
    ambient: [
      '{hero} waits.',
      'The day is short.',
      '{ally} says little.',
      'Nothing is wasted here.',
      'The work goes on.',
      '{hero} checks it twice.',
      'The facts are simple.',
      'No one argues.',
      'The light fades early.',
      '{third} leaves.',
      'It rains again.',
      'Plans change.',
    ],
    target: [255, 300],
  },
  neutral: {
    frames: [
      '{lead}, the story turns: {kp}.',
      '{lead}, it becomes clear: {kp}.',
      '{lead}, the next step is plain: {kp}.',
      '{lead}, as it turns out: {kp}.',
      '{lead}, one thing is certain: {kp}.',
      '{lead}, the news is this: {kp}.',
      '{lead}, the facts line up: {kp}.',
      '{lead}, it comes to this: {kp}.',
    ],
    ambient: [
      '{hero} goes over the facts again, slowly.',
      '{ally} has a way of asking the right question at the wrong time.',
      'The days at {place} are short in {time}, and there is always more to do than light to do it by.',
      'Neither of them says much, but both of them are thinking the same thing.',
      'There are practical matters to handle as well: meals, repairs, messages to answer.',
      'Nobody expects an answer soon, and nobody gets one.',
      '{hero} keeps a notebook now, and it is filling quickly.',
      'The routine helps, even when nothing else does.',
      '{third} drops by with news and stays for supper.',
      'The weather holds, mostly.',
      'There is a quiet week, and then another.',
      '{hero} writes down what happened, to keep it straight.',
    ],
    target: [340, 430],
  },
};
