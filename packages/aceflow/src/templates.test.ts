import assert from 'node:assert/strict';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { AceflowError, LIMITS } from './errors.js';
import { markersLeft } from './markdown.js';
import { STAGE_IDS } from './stages.js';
import { TemplateStore } from './templates.js';
import { fillTemplate, scratchDir } from './test-support.js';

let scratch: Awaited<ReturnType<typeof scratchDir>>;
before(async () => {
  scratch = await scratchDir('templates');
});
after(() => scratch.remove());

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => assert.fail('expected a refusal'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof AceflowError, String(error));
  return error;
};

test('every shipped template is a document with a title, at least five sections and its placeholders', async () => {
  const templates = new TemplateStore();
  for (const stage of STAGE_IDS) {
    const template = await templates.get(stage);
    assert.equal(template.sourceFile, `templates/${stage}.md`);
    assert.match(template.content, /^# .+ — \{\{project_name\}\}\n/, `${stage} starts with its title`);
    assert.ok(template.sections.length >= 5, `${stage} has ${template.sections.length} sections`);
    assert.equal(template.placeholders[0], 'project_name');
    assert.ok(template.placeholders.length >= template.sections.length, `${stage}: every section asks for something`);
    for (const section of template.outline.sections) assert.match(section.body, /\{\{/, `${stage}: "## ${section.title}" has a placeholder`);
    assert.ok(Buffer.byteLength(template.content) < LIMITS.templateBytes);
    assert.deepEqual(markersLeft(fillTemplate(template.content)), [], `${stage} can be filled completely`);
  }
});

test('a template is read once, and read again only when its file changes', async () => {
  const dir = path.join(scratch.dir, 'reload');
  await mkdir(dir);
  const file = path.join(dir, 's1_user_story.md');
  await writeFile(file, '# A\n\n## First\n{{alpha}}\n');
  // Whole seconds, so that setting the same time again reproduces it exactly.
  const mtime = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
  await utimes(file, mtime, mtime);
  const templates = new TemplateStore({ dir });

  assert.deepEqual((await templates.get('s1_user_story')).placeholders, ['alpha']);
  assert.deepEqual((await templates.get('s1_user_story')).sections, ['First']);
  assert.equal(templates.loads, 1, 'the second read came from memory');

  // Same size and the old mtime: indistinguishable by the check, so the cached copy stays.
  await writeFile(file, '# B\n\n## Other\n{{betaa}}\n');
  await utimes(file, mtime, mtime);
  assert.deepEqual((await templates.get('s1_user_story')).placeholders, ['alpha']);
  assert.equal(templates.loads, 1);

  const later = new Date(mtime.getTime() + 5_000);
  await utimes(file, later, later);
  const reloaded = await templates.get('s1_user_story');
  assert.deepEqual([reloaded.placeholders, reloaded.sections], [['betaa'], ['Other']]);
  assert.equal(templates.loads, 2);
});

test('a missing template, or a directory in its place, is TEMPLATE_NOT_FOUND', async () => {
  const dir = path.join(scratch.dir, 'missing');
  await mkdir(path.join(dir, 's2_tasks_group.md'), { recursive: true });
  const templates = new TemplateStore({ dir });
  for (const stage of ['s1_user_story', 's2_tasks_group'] as const) {
    const error = await refusal(templates.get(stage));
    assert.equal(error.code, 'TEMPLATE_NOT_FOUND');
    assert.equal(error.details.source_file, `missing/${stage}.md`);
  }
});

test('a template over 1 MB is refused with its size; one of exactly 1 MB is read', async () => {
  const dir = path.join(scratch.dir, 'large');
  await mkdir(dir);
  const head = '# Big\n\n## Body\n{{body}}\n';
  await writeFile(path.join(dir, 's3_testcases.md'), head + 'x'.repeat(LIMITS.templateBytes - head.length));
  await writeFile(path.join(dir, 's4_implementation.md'), head + 'x'.repeat(LIMITS.templateBytes - head.length + 1));
  const templates = new TemplateStore({ dir });
  assert.deepEqual((await templates.get('s3_testcases')).placeholders, ['body']);
  const error = await refusal(templates.get('s4_implementation'));
  assert.equal(error.code, 'TEMPLATE_NOT_FOUND');
  assert.deepEqual([error.details.reason, error.details.size_bytes, error.details.limit_bytes], ['too_large', LIMITS.templateBytes + 1, 1024 * 1024]);
  assert.match(error.message, /1 MB/);
});

test('a stage id that is not one of the eight never becomes a file name', async () => {
  const error = await refusal(new TemplateStore({ dir: scratch.dir }).get('../../etc/passwd' as never));
  assert.equal(error.code, 'MISSING_STAGE');
});
