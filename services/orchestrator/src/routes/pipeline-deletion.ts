/**
 * Deleting a pipeline, or one version of it. Deleted, a version is gone from listings and from
 * new runs (404) at once; runs that had started on it go on, since the store keeps it aside for
 * their workers for the run retention (PipelineStore). The pipelines the story and AceFlow routes
 * run cannot be deleted (409), nor their last version: the routes would have nothing to run.
 */
import type { Request, Router } from 'express';
import { HttpError } from '@switchyard/http-kit';
import { parseVersion, SHIPPED_PIPELINE_NAMES } from '@switchyard/pipeline';
import type { AppDeps } from '../deps.js';
import type { PipelineDeleted, PipelineVersionDeleted } from './pipeline-shapes.js';

const shippedRefusal = (message: string) => new HttpError({ status: 409, code: 'pipeline_shipped', message });

export function deletionRoutes(router: Router, deps: AppDeps, pipelineName: (req: Request) => string): void {
  router.delete('/v1/pipelines/:name', async (req, res) => {
    const name = pipelineName(req);
    if (SHIPPED_PIPELINE_NAMES.includes(name)) throw shippedRefusal(`Pipeline ${name} is shipped with Switchyard and its routes run it: it cannot be deleted (its versions other than the last can)`);
    const deleted = await deps.pipelines.deletePipeline(name);
    if (!deleted) throw new HttpError({ status: 404, code: 'pipeline_not_found', message: `No pipeline ${name}` });
    const body: PipelineDeleted = { name, outcome: 'deleted', versions: deleted.versions };
    res.json(body);
  });

  router.delete('/v1/pipelines/:name/versions/:version', async (req, res) => {
    const name = pipelineName(req);
    const version = parseVersion(String(req.params.version));
    if (version === undefined) throw new HttpError({ status: 404, code: 'pipeline_not_found', message: `No version ${String(req.params.version)} of pipeline ${name}` });
    if (SHIPPED_PIPELINE_NAMES.includes(name)) {
      const others = (await deps.pipelines.versions(name)).filter((v) => v.definition.version !== version);
      if (others.length === 0) throw shippedRefusal(`Version ${version} is the last of pipeline ${name}, which is shipped with Switchyard and its routes run: it cannot be deleted`);
    }
    const deleted = await deps.pipelines.deleteVersion(name, version);
    if (!deleted) throw new HttpError({ status: 404, code: 'pipeline_not_found', message: `No version ${version} of pipeline ${name}` });
    const body: PipelineVersionDeleted = { name, version, outcome: 'deleted', latest: deleted.latest || null };
    res.json(body);
  });
}
