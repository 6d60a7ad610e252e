/**
 * `npm start`: the main job. Starts Redis (installing it on a fresh machine), the four reference
 * tool services, and writes one story per topic through the resilient tool client: search (sync)
 * → outline (sync) → four sections (streamed, in parallel) → polish (async). Stories land in
 * `.data/stories/`. The queue-backed pipeline replaces the direct calls in the next milestone.
 *
 *   npm start                                  the built-in sample topic
 *   npm start -- "a topic" "another topic"     your topics
 *   npm start -- --serve                       keep the services running afterwards
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseToolServicesEnv, SECTION_ORDER, TOOL_SERVICE_KEYS, type SectionName } from '@switchyard/contracts';
import { createLogger } from '@switchyard/logger';
import { pingRedis, REPO_ROOT, resolveRedis } from '@switchyard/redis';
import { callStoryTool, createStoryToolClients, type StoryToolClients } from '@switchyard/tool-client';
import { createOfflineAuthor, startToolServices } from '@switchyard/tool-services';

const args = process.argv.slice(2);
const serve = args.includes('--serve');
const topics = args.filter((a) => !a.startsWith('--'));
if (topics.length === 0) topics.push('a lighthouse keeper who collects lost letters');

const say = (line: string) => process.stdout.write(`${line}\n`);
const redis = await resolveRedis({ url: process.env.REDIS_URL });
say(`Redis        ${redis.url} (${(await pingRedis(redis.url)) ? 'PONG' : 'no answer'})`);

const apiKey = randomBytes(16).toString('hex');
const stack = await startToolServices({ author: createOfflineAuthor(), logger: createLogger({ name: 'tool-services', level: 'warn' }), apiKeys: [apiKey] });
// The services' URLs are the ones just started; modes and timeouts still come from the environment.
const config = parseToolServicesEnv({
  ...process.env,
  SEARCH_SERVICE_URL: stack.services.search.url,
  OUTLINE_SERVICE_URL: stack.services.outline.url,
  WRITING_SERVICE_URL: stack.services.writing.url,
  EDITING_SERVICE_URL: stack.services.editing.url,
  TOOL_SERVICE_API_KEY: apiKey,
});
for (const key of TOOL_SERVICE_KEYS) say(`${key.padEnd(12)} ${stack.services[key].url}  (${config.services[key].tool}, ${config.services[key].mode})`);
const clients = createStoryToolClients(config);

async function writeStory(topic: string, clients: StoryToolClients): Promise<string> {
  const mode = (key: keyof StoryToolClients) => config.services[key].mode;
  const research = await callStoryTool(clients.search, 'search_relevant_information', { topic, depth: 4 }, { mode: mode('search') });
  say(`  search     ${research.results.length} findings`);
  const outline = await callStoryTool(clients.outline, 'generate_structured_outline', { topic, research: research.results.map((r) => ({ title: r.title, content: r.snippet })) }, { mode: mode('outline') });
  say(`  outline    "${outline.title}"`);
  const words: Record<string, number> = {};
  const sections = await Promise.all(
    SECTION_ORDER.map((name: SectionName) =>
      callStoryTool(clients.writing, 'write_story_section', { section_name: name, outline: outline.sections[name], story_title: outline.title, characters: outline.sections.introduction.characters }, {
        mode: mode('writing'),
        onChunk: (chunk) => (words[name] = (words[name] ?? 0) + chunk.split(/\s+/).filter(Boolean).length),
      }),
    ),
  );
  say(`  sections   ${SECTION_ORDER.map((name, i) => `${name} ${sections[i]?.word_count ?? 0}w`).join(', ')}`);
  const polished = await callStoryTool(clients.editing, 'polish_story', { draft: sections.map((s) => s.content).join('\n\n'), focus_areas: ['character_development', 'pacing', 'language'], target_audience: 'general' }, { mode: mode('editing') });
  say(`  polish     ${polished.improvements.map((i) => `${i.type} ${i.count}`).join(', ')}`);
  return `# ${outline.title}\n\n${polished.polished_content}\n`;
}

const outDir = path.join(REPO_ROOT, '.data', 'stories');
mkdirSync(outDir, { recursive: true });
let failures = 0;
for (const topic of topics) {
  say(`\nStory: ${topic}`);
  try {
    const story = await writeStory(topic, clients);
    const file = path.join(outDir, `${topic.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'story'}.md`);
    writeFileSync(file, story);
    say(`  written    ${path.relative(process.cwd(), file)}`);
  } catch (error) {
    failures += 1;
    say(`  failed     ${error instanceof Error ? error.message : String(error)}`);
  }
}

if (serve) {
  say(`\nServing; API key for the tool services: ${apiKey}. Ctrl-C stops.`);
  const stop = async () => {
    await stack.close();
    await redis.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
} else {
  await stack.close();
  await redis.stop();
  process.exit(failures === 0 ? 0 : 1);
}
