/**
 * The Switchyard API's types, generated from its OpenAPI document by openapi-typescript.
 * Do not edit: `npm run client:generate` writes this file again, and a test fails when it differs
 * from what the current document gives.
 */
export interface paths {
    "/v1/stories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a story
         * @description Runs the shipped `story` pipeline on the request. Unknown fields are refused.
         */
        post: operations["startStory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/aceflow/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start an AceFlow stage-generation run
         * @description Checks the analysis against seed 000's data rules and runs the stages of the project's mode (or the slice `from_stage`…`to_stage`).
         */
        post: operations["startAceflowRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List runs, newest first
         * @description Optionally only runs of one `status` and of one `pipeline`. Each run is a summary (status, progress, pipeline, times, the input's `topic`, the result's `title`), without its input, stages or result: `fields` adds them, as `GET /v1/runs/{runId}` gives them. A page holds at most `limit` runs and stops early before its bytes pass the listing budget (`truncated`); `next_offset` is where the next page starts.
         */
        get: operations["listRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{runId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a run: status, progress, stages, result */
        get: operations["getRun"];
        put?: never;
        post?: never;
        /**
         * Cancel a run
         * @description Moves the run to `cancelled`; its stages in flight stop within moments. Cancelling a cancelled run answers it again.
         */
        delete: operations["cancelRun"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{runId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow a run's events (Server-Sent Events)
         * @description Replays the events (from `Last-Event-ID`, or from the start), then follows them until `done`, which carries the result of a completed run. A `Last-Event-ID` at or past the end of a finished run gets its `done` at once.
         */
        get: operations["followRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/batches": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List batches, newest first, with their counts */
        get: operations["listBatches"];
        put?: never;
        /**
         * Start a batch of runs
         * @description Without `pipeline`, each item merged over `defaults` is a story request; with it, each is an input of that pipeline. All runs are recorded at once and enqueued by a dispatcher.
         */
        post: operations["startBatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/batches/{batchId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a batch: counts by status and a page of its runs */
        get: operations["getBatch"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/batches/{batchId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow a batch's events (Server-Sent Events)
         * @description A `run` event as each run ends, then `done` with the counts. A `Last-Event-ID` at or past the end of a finished batch gets its `done` at once.
         */
        get: operations["followBatch"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/inbox": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List what runs wait for: tool calls to approve, signals to send
         * @description Oldest first, a page at a time; of one pipeline (`pipeline`) or one run (`run_id`). Each item says what it waits for and the form of the answer (`schema`: the tool's argument schema, or the signal's payload schema) and where it goes (`answer_url`).
         */
        get: operations["listInbox"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{runId}/approvals/{callId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a tool call that waits for approval, its reason whole
         * @description The inbox item of the call, as `GET /v1/inbox` lists it but with the model's reason whole (listings cut it to its first 500 characters).
         */
        get: operations["getApproval"];
        put?: never;
        /**
         * Approve (optionally with edited arguments) or refuse a tool call that waits
         * @description Recorded, then the waiting job is woken. Edited `arguments` are checked against the tool's schema; a refusal's `note` is what the model reads as the call's result. A call is decided once.
         */
        post: operations["answerApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/runs/{runId}/signals/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a signal to a run's wait step
         * @description The JSON body is the payload, checked against the wait step's schema; it becomes the step's output. A signal sent before the run reaches the step is kept for it. The first signal of a name stands: another answers 200 `duplicate`.
         */
        post: operations["sendSignal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pipelines": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List pipelines, each by its latest version
         * @description In the order their latest version was registered, a page at a time: at most `limit`, and it stops early before its bytes pass the listing budget (`truncated`; `next_offset` goes on).
         */
        get: operations["listPipelines"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pipelines/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a pipeline: its latest definition and every version */
        get: operations["getPipeline"];
        /**
         * Register a pipeline definition as a new version
         * @description The definition is validated against the format, the tool services' `GET /tools` and the step kinds; a bad one is refused with every problem and its place, and nothing is stored. Versions are immutable: without `version`, the next one is taken; sending the latest definition again is `unchanged`.
         */
        put: operations["registerPipeline"];
        post?: never;
        /**
         * Delete a pipeline: every version
         * @description Every version is gone from listings and new runs at once (404); runs already started go on, on their version. Version numbers are never given again, should the name be registered anew. The pipelines shipped with Switchyard (`story`, `aceflow`) cannot be deleted.
         */
        delete: operations["deletePipeline"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pipelines/{name}/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete one version of a pipeline
         * @description The version is gone from listings and new runs at once (404); runs already started on it go on, on it. Its number is never given again. The latest becomes the highest version left.
         */
        delete: operations["deletePipelineVersion"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pipelines/{name}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a run of a pipeline
         * @description The run is pinned to the version it starts with; registering a new version never changes it.
         */
        post: operations["startPipelineRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/schemas/pipeline.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The pipeline definition format as JSON Schema (for editors) */
        get: operations["getPipelineSchema"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Redis and each tool service */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/livez": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Kubernetes' liveness probe: the process answers (Redis is not asked: an outage is no reason to restart) */
        get: operations["getLiveness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Kubernetes' readiness probe: this process serves, is not draining, and reaches Redis */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This orchestrator's metrics for Prometheus: runs started and ended, SSE clients, queue depths, Redis round trip, the process */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document (OpenAPI 3.1) */
        get: operations["getOpenApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An interactive reference of this API (Swagger UI, served locally) */
        get: operations["getApiReference"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List schedules with their next and last runs
         * @description By name, a page at a time; each with when its next tick is due and the run its last tick started (with that run's status now).
         */
        get: operations["listSchedules"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a schedule, its next tick and its last run */
        get: operations["getSchedule"];
        /**
         * Create or replace a schedule that runs a pipeline
         * @description Each tick starts one run of the pipeline with `input`, whatever the number of workers and orchestrators (BullMQ job schedulers); its run id is made from the schedule and the tick, so a tick processed twice starts one run. Checked before it is stored: the pipeline (and version) exists, `cron` parses in `timezone`, `every` is at least 1 s, `input` fits `SCHEDULE_MAX_INPUT_BYTES` and the pipeline's input schema. Replacing a schedule keeps it paused if it was.
         */
        put: operations["putSchedule"];
        post?: never;
        /**
         * Delete a schedule and its job scheduler
         * @description No tick after this; runs it started go on.
         */
        delete: operations["deleteSchedule"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules/{name}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause a schedule: no tick until it is resumed
         * @description Its job scheduler is removed (its next tick with it); the schedule, its input and its last run are kept. Pausing a paused schedule changes nothing.
         */
        post: operations["pauseSchedule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules/{name}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a paused schedule: it ticks again from now on
         * @description Its job scheduler is set again: an interval counts from now, a cron pattern fires at its next time. Ticks missed while paused are not made up.
         */
        post: operations["resumeSchedule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The run dashboard (an HTML page; it shows nothing until given the key) */
        get: operations["getDashboard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ui/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Whether the cookie opens a browser session, and with which scopes
         * @description Always 200, so that a page can ask before it has a session without a failed request.
         */
        get: operations["getBrowserSession"];
        put?: never;
        /**
         * Open a browser session with the API key
         * @description Opens a session (a record on the server) and sets its cookie, which `/v1` and `/admin/queues` accept in place of the key, with the key's scopes (a browser cannot put a header on a page navigation or an EventSource). The cookie holds a random token, never the key. The session ends when ended (`DELETE /ui/session`), after `UI_SESSION_IDLE_S` without a request, `UI_SESSION_MAX_S` after it opened, or when its key leaves `API_KEYS`. A request made with the cookie alone that is not GET or HEAD must come from this origin (`Origin`), else 403 `cross_origin`. Wrong keys are counted per client address: past `AUTH_FAILURE_LIMIT` within `AUTH_FAILURE_WINDOW_S`, 429.
         */
        post: operations["openBrowserSession"];
        /**
         * End the browser session for good (and clear the cookie)
         * @description The session of the cookie sent is ended on the server: the same cookie sent again is refused (401). Needs nothing but the cookie.
         */
        delete: operations["closeBrowserSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        PipelineDefinition: {
            name?: string;
            /** @description Given by the server when absent: one more than the highest so far (at most 1000000000) */
            version?: number;
            /** @default  */
            description: string;
            /**
             * @description JSON Schema of a run's input (type: object)
             * @default {
             *       "type": "object"
             *     }
             */
            input: {
                [key: string]: unknown;
            };
            /** @description The run's result, from `input` and `steps`: an expression, or an object whose string values are expressions (default: every step's output) */
            output?: string | {
                [key: string]: unknown;
            };
            /** @description JSON Schema of the result, for MCP clients */
            output_schema?: {
                [key: string]: unknown;
            };
            /** @description A concurrency key (docs/PIPELINES.md, "Flow control") */
            concurrency?: {
                /** @description Its value names the key, e.g. `input.user`: at most `limit` at once per value (a value that is not text is written as JSON; none is one key of its own) */
                key: string;
                /** @description At most this many at once per key value; the rest wait queued, holding no worker slot, and start in order as others end */
                limit: number;
            };
            /** @description Fair shares between callers (docs/PIPELINES.md, "Flow control") */
            fairness?: {
                /** @description Its value names whose share a run's jobs take, e.g. `input.tenant` (default: the API key that started the run) */
                key: string;
                /**
                 * @description How large a share a run's key takes against others waiting in the same queue and class: a number, or an expression over the input giving one per key (e.g. `input.tenant = 'gold' ? 3 : 1`); held to 0.01–100, default 1
                 * @default 1
                 */
                weight: number | string;
            };
            /** @description USD the run's agent steps together may cost at most (its child runs' are their own), by the models' prices in MODELS; past it the agent step that reached it fails with run_cost_exceeded */
            max_cost?: number;
            steps: {
                [key: string]: {
                    /** @description A concurrency key (docs/PIPELINES.md, "Flow control") */
                    concurrency?: {
                        /** @description Its value names the key, e.g. `input.user`: at most `limit` at once per value (a value that is not text is written as JSON; none is one key of its own) */
                        key: string;
                        /** @description At most this many at once per key value; the rest wait queued, holding no worker slot, and start in order as others end */
                        limit: number;
                    };
                    description?: string;
                    /** @description A tool published on GET /tools by a configured tool service */
                    tool?: string;
                    /** @description The service publishing `tool`, when more than one does */
                    service?: string;
                    /** @description A step kind registered in code, e.g. aceflow.stage */
                    uses?: string;
                    /** @description A model that chooses which of its tools to call until it answers (docs/PIPELINES.md, "Agent steps") */
                    agent?: {
                        /**
                         * @description A configured model: `default` (LLM_MODEL) or a name in MODELS
                         * @default default
                         */
                        model: string;
                        /** @description The system message, as an expression */
                        instructions?: string;
                        /** @description The first user message, as an expression */
                        prompt: string;
                        /**
                         * @description What the model may call
                         * @default []
                         */
                        tools: (string | {
                            tool: string;
                            /** @description The service publishing `tool`, when more than one does */
                            service?: string;
                            /** @description What the model is told the tool does (default: the tool's own description) */
                            description?: string;
                            /** @description `required`: each call waits for a person's approval (POST /v1/runs/{id}/approvals/{call_id}); or an expression over the call's `arguments` (and `input`, `steps`) that says whether this call needs one */
                            approval?: "required" | string;
                        } | {
                            /** @description A registered pipeline: each call is a child run, its input the arguments */
                            pipeline: string;
                            /** @description Default: the latest when the step runs */
                            version?: number;
                            /** @description What the model is told the tool does (default: the tool's own description) */
                            description?: string;
                            /** @description `required`: each call waits for a person's approval (POST /v1/runs/{id}/approvals/{call_id}); or an expression over the call's `arguments` (and `input`, `steps`) that says whether this call needs one */
                            approval?: "required" | string;
                        } | {
                            /** @description A server named in MCP_SERVERS */
                            mcp: string;
                            tool: string;
                            /** @description What the model is told the tool does (default: the tool's own description) */
                            description?: string;
                            /** @description `required`: each call waits for a person's approval (POST /v1/runs/{id}/approvals/{call_id}); or an expression over the call's `arguments` (and `input`, `steps`) that says whether this call needs one */
                            approval?: "required" | string;
                        })[];
                        /**
                         * @description Model turns at most; past them the step fails with agent_turns_exceeded
                         * @default 8
                         */
                        max_turns: number;
                        /**
                         * @description Prompt and completion tokens over the step at most; past them it fails with agent_tokens_exceeded
                         * @default 50000
                         */
                        max_tokens: number;
                        /** @description USD the step's model turns may cost at most, by the model's prices in MODELS; past it the step fails with agent_cost_exceeded */
                        max_cost?: number;
                        /** @description JSON Schema of the answer: the answer is parsed as JSON and checked; one that does not fit goes back to the model once with the errors, then fails the step with invalid_output */
                        output_schema?: {
                            [key: string]: unknown;
                        };
                    };
                    /** @description Waits for a signal, whose payload is the output (docs/PIPELINES.md, "Waits and approvals") */
                    wait?: {
                        /** @description The signal the step waits for: POST /v1/runs/{id}/signals/{signal} */
                        signal: string;
                        /** @description JSON Schema of the signal's payload: a payload that breaks it is refused with 400 naming the field */
                        schema?: {
                            [key: string]: unknown;
                        };
                        /** @description How long the step waits (default 7d, at most 365d) */
                        timeout?: number | string;
                        /**
                         * @description `fail`: the step fails with wait_timed_out; `continue`: its output is null
                         * @default fail
                         * @enum {string}
                         */
                        on_timeout: "fail" | "continue";
                    };
                    /** @description A registered pipeline, run as a child run with `args` as its input; its result is the step's output */
                    pipeline?: string;
                    /** @description The version of `pipeline` (default: its latest when the child starts) */
                    version?: number;
                    /** @description A step that runs, reading `error`, when this one fails for good; its output stands for this step's */
                    on_error?: string;
                    /**
                     * @description Steps this one waits for
                     * @default []
                     */
                    needs: string[];
                    /** @description An expression giving the arguments, or an object whose string values are expressions */
                    args?: string | {
                        [key: string]: unknown;
                    };
                    /** @description A list computed at run time: the step runs once per item (`item`, `index`), in parallel */
                    map?: string;
                    /** @description The step runs only when this is true; otherwise it is skipped */
                    when?: string;
                    repeat?: {
                        /** @description Checked after each run, with `output` and `iteration` */
                        until: string;
                        /** @description Runs at most */
                        max: number;
                        /**
                         * @description What happens when `until` is still false after `max` runs
                         * @default continue
                         * @enum {string}
                         */
                        on_limit: "continue" | "fail";
                    };
                    /**
                     * @description How the tool is called (default: the service's configured mode)
                     * @enum {string}
                     */
                    mode?: "sync" | "async" | "stream";
                    /** @description Per attempt */
                    timeout?: number | string;
                    /** @description The time budget of each evaluation of this step's expressions that are not plain; below the deployment's EXPRESSION_TIMEOUT_MS, which it cannot raise */
                    expression_timeout?: number | string;
                    retry?: {
                        attempts?: number;
                        /** @description First delay between attempts, doubling */
                        backoff?: number | string;
                    };
                };
            };
        };
        StoryRequest: {
            topic: string;
            style?: string;
            structure?: string;
            target_audience?: string;
            focus_areas?: string[];
            depth?: number;
        };
        BatchRequest: {
            items: {
                topic?: string;
                style?: string;
                structure?: string;
                target_audience?: string;
                focus_areas?: string[];
                depth?: number;
            }[];
            defaults?: {
                topic?: string;
                style?: string;
                structure?: string;
                target_audience?: string;
                focus_areas?: string[];
                depth?: number;
            };
            /** @description A webhook told once, when every run of the batch has ended */
            notify?: {
                /** @description Where the end is POSTed, signed (`Switchyard-Signature`); its host must be in `WEBHOOK_ALLOW` */
                url: string;
            };
            /** @description 1 goes first, 9 last (default: 3 for a single run started by a person or an agent, 6 for a batch's or a schedule's runs) */
            priority?: number;
        };
        PipelineBatchRequest: {
            pipeline: string;
            version?: number;
            items: {
                [key: string]: unknown;
            }[];
            defaults?: {
                [key: string]: unknown;
            };
            /** @description A webhook told once, when every run of the batch has ended */
            notify?: {
                /** @description Where the end is POSTed, signed (`Switchyard-Signature`); its host must be in `WEBHOOK_ALLOW` */
                url: string;
            };
            /** @description 1 goes first, 9 last (default: 3 for a single run started by a person or an agent, 6 for a batch's or a schedule's runs) */
            priority?: number;
        };
        AceflowRunRequest: {
            project: {
                name: string;
                /**
                 * @default complete
                 * @enum {string}
                 */
                mode: "complete" | "standard" | "minimal";
                workspace?: string;
            };
            analysis?: {
                [key: string]: {
                    [key: string]: unknown;
                };
            };
            /** @enum {string} */
            from_stage?: "s1_user_story" | "s2_tasks_group" | "s3_testcases" | "s4_implementation" | "s5_test_report" | "s6_codereview" | "s7_demo_script" | "s8_summary_report";
            /** @enum {string} */
            to_stage?: "s1_user_story" | "s2_tasks_group" | "s3_testcases" | "s4_implementation" | "s5_test_report" | "s6_codereview" | "s7_demo_script" | "s8_summary_report";
        };
        /** @enum {string} */
        RunStatus: "queued" | "running" | "waiting" | "completed" | "failed" | "cancelled";
        /** @description A schedule: exactly one of `cron` and `every` */
        ScheduleRequest: {
            /** @description The registered pipeline it runs */
            pipeline: string;
            /** @description The version every run is pinned to (default: the latest at each tick) */
            version?: number;
            /** @description A cron pattern (5 fields, or 6 with seconds first), read in `timezone` */
            cron?: string;
            /** @description An interval (`30s`, `5m`, or ms), at least 1 s */
            every?: number | string;
            /** @description An IANA time zone for `cron` (default UTC) */
            timezone?: string;
            /**
             * @description Each run's input, checked against the pipeline's input schema
             * @default {}
             */
            input: {
                [key: string]: unknown;
            };
            /** @description The priority class of its runs: 1 goes first, 9 last (default 6, as batch work) */
            priority?: number;
            /**
             * @description Ticks missed while every worker was down: `latest` (default) runs one, for the latest missed tick; `none` runs none; `all` runs each, up to `catch_up_max`
             * @enum {string}
             */
            catch_up?: "none" | "latest" | "all";
            /** @description With catch_up all: the most missed ticks run after an outage (default 10, at most 100), the latest ones */
            catch_up_max?: number;
        };
        Error: {
            error: {
                /** @description Stable, for programs: `invalid_parameters`, `run_not_found`, … */
                code: string;
                /** @description For people: names the field or id at fault */
                message: string;
                details: {
                    [key: string]: unknown;
                };
            };
        };
        RunAccepted: {
            run_id: string;
            status: components["schemas"]["RunStatus"];
            /** @description GET this for the current state */
            poll_url: string;
            /** @description GET this for the events as Server-Sent Events */
            events_url: string;
        };
        AceflowRunAccepted: {
            run_id: string;
            status: components["schemas"]["RunStatus"];
            /** @description GET this for the current state */
            poll_url: string;
            /** @description GET this for the events as Server-Sent Events */
            events_url: string;
            stages: ("s1_user_story" | "s2_tasks_group" | "s3_testcases" | "s4_implementation" | "s5_test_report" | "s6_codereview" | "s7_demo_script" | "s8_summary_report")[];
        };
        PipelineRunAccepted: {
            run_id: string;
            status: components["schemas"]["RunStatus"];
            /** @description GET this for the current state */
            poll_url: string;
            /** @description GET this for the events as Server-Sent Events */
            events_url: string;
            pipeline: {
                name: string;
                version: number;
            };
        };
        BatchAccepted: {
            batch_id: string;
            /** @constant */
            status: "queued";
            total: number;
            run_ids: string[];
            /** @description GET this for the current state */
            poll_url: string;
            /** @description GET this for the events as Server-Sent Events */
            events_url: string;
        };
        RunView: {
            run_id: string;
            kind: string;
            status: components["schemas"]["RunStatus"];
            progress: number;
            created_at: string;
            updated_at: string;
            batch_id: string | null;
            pipeline: {
                name: string;
                version: number;
            } | null;
            request: unknown;
            stages: components["schemas"]["StageView"][];
            result: unknown | null;
            error: components["schemas"]["RunError"] | null;
            parent?: {
                run_id: string;
                stage: string;
            };
            flow?: {
                /** @description Its priority class: 1 goes first, 9 last */
                priority: number;
                /** @description Whose fair share its jobs take: `key:<API key id>`, `schedule:<name>`, or `v:<value>` of its pipeline's `fairness.key` */
                key: string;
                /** @description Its key's weight, when not 1 */
                weight?: number;
                /** @description The concurrency key the run holds while it runs (its pipeline's `concurrency`) */
                concurrency?: {
                    scope: string;
                    value: string;
                    limit: number;
                };
                /** @description Present while the run is queued */
                waiting?: {
                    /**
                     * @description `concurrency_key`: its key has `limit` runs going; `priority`: work of a higher class is ahead; `fair_share`: other keys' work of its class is served first in turn (or, with no `queue`, its batch adds it once its key's backlog drains); `starting`: nothing is ahead of it
                     * @enum {string}
                     */
                    reason: "priority" | "fair_share" | "concurrency_key" | "starting";
                    /** @description The queue its first step waits in */
                    queue?: string;
                    /** @description Jobs ahead of it in that queue (all classes), or runs ahead of it behind its concurrency key */
                    ahead?: number;
                    /** @description Of those, jobs of a higher class */
                    ahead_higher_priority?: number;
                    /** @description Runs holding its concurrency key now */
                    holders?: number;
                };
            };
            /** @description USD the run's agent stages cost, by their models' prices (present when the run has an agent stage) */
            cost_usd?: number;
            poll_url: string;
            events_url: string;
        };
        RunList: {
            runs: components["schemas"]["RunSummary"][];
            offset: number;
            limit: number;
            /** @description The `offset` of the next page; null when this page holds the last */
            next_offset: number | null;
            /** @description The page stopped before `limit` items because its bytes would have passed the listing budget (`LIST_PAGE_MAX_BYTES`): ask again from `next_offset` */
            truncated: boolean;
        };
        BatchView: {
            batch_id: string;
            created_at: string;
            total: number;
            dispatched: number;
            counts: {
                [key: string]: number;
            };
            /** @description USD its ended runs' agent steps cost, each run's counted as it ends (0 for runs without priced agents) */
            cost_usd: number;
            runs: {
                run_id: string;
                status: components["schemas"]["RunStatus"] | null;
            }[];
            offset: number;
            limit: number;
            /** @description The `offset` of the next page; null when this page holds the last */
            next_offset: number | null;
            /** @description The page stopped before `limit` items because its bytes would have passed the listing budget (`LIST_PAGE_MAX_BYTES`): ask again from `next_offset` */
            truncated: boolean;
            /** @enum {string} */
            status: "running" | "done";
            /** @description GET this for the current state */
            poll_url: string;
            /** @description GET this for the events as Server-Sent Events */
            events_url: string;
        };
        BatchList: {
            batches: {
                batch_id: string;
                created_at: string;
                total: number;
                dispatched: number;
                counts: {
                    [key: string]: number;
                };
                /** @description USD its ended runs' agent steps cost, each run's counted as it ends (0 for runs without priced agents) */
                cost_usd: number;
                /** @enum {string} */
                status: "running" | "done";
                /** @description GET this for the current state */
                poll_url: string;
                /** @description GET this for the events as Server-Sent Events */
                events_url: string;
                pipeline: string | null;
            }[];
            offset: number;
            limit: number;
            /** @description The `offset` of the next page; null when this page holds the last */
            next_offset: number | null;
            /** @description The page stopped before `limit` items because its bytes would have passed the listing budget (`LIST_PAGE_MAX_BYTES`): ask again from `next_offset` */
            truncated: boolean;
        };
        PipelineList: {
            pipelines: {
                name: string;
                latest: number;
                description: string;
                registered_at: string;
            }[];
            offset: number;
            limit: number;
            /** @description The `offset` of the next page; null when this page holds the last */
            next_offset: number | null;
            /** @description The page stopped before `limit` items because its bytes would have passed the listing budget (`LIST_PAGE_MAX_BYTES`): ask again from `next_offset` */
            truncated: boolean;
        };
        PipelineView: {
            name: string;
            latest: number;
            description: string;
            /** @description As registered, with its defaults filled and durations in ms */
            definition: components["schemas"]["PipelineDefinition"];
            versions: {
                version: number;
                registered_at: string;
                /** @description As registered, with its defaults filled and durations in ms */
                definition: components["schemas"]["PipelineDefinition"];
            }[];
        };
        PipelineRegistered: {
            name: string;
            version: number;
            /** @enum {string} */
            outcome: "created" | "unchanged";
        };
        ScheduleList: {
            schedules: components["schemas"]["ScheduleView"][];
            offset: number;
            limit: number;
            total: number;
            next_offset: number | null;
        };
        OrchestratorHealth: {
            /** @enum {string} */
            status: "healthy" | "degraded";
            redis: {
                healthy: boolean;
                latency_ms: number;
                error?: string;
            };
            services: {
                [key: string]: {
                    healthy: boolean;
                    latency_ms: number;
                    error?: string;
                    url: string;
                };
            };
        };
        RunStageEvent: {
            stage: string;
            /** @enum {string} */
            status: "pending" | "running" | "retrying" | "completed" | "skipped" | "failed" | "cancelled";
            attempt: number;
            error?: components["schemas"]["RunError"];
            progress?: {
                percent: number;
                completed_stages: number;
                total_stages: number;
            };
        };
        RunContentEvent: {
            stage: string;
            section: string;
            chunk: string;
        };
        RunResetEvent: {
            stage: string;
            section: string;
        };
        RunErrorEvent: {
            code: string;
            message: string;
            stage?: string;
            retryable?: boolean;
            details?: unknown;
            will_retry: boolean;
        };
        RunTurnEvent: {
            stage: string;
            turn: number;
            tool_calls: number;
            usage: {
                prompt_tokens: number;
                completion_tokens: number;
            };
        };
        RunTool_callEvent: {
            stage: string;
            turn: number;
            call_id: string;
            tool: string;
            arguments: string;
        };
        RunTool_resultEvent: {
            stage: string;
            turn: number;
            call_id: string;
            tool: string;
            is_error: boolean;
            preview: string;
        };
        RunWaitingEvent: {
            stage: string;
            /** @enum {string} */
            kind: "approval" | "signal";
            key: string;
            /** @enum {string} */
            state: "pending" | "resolved";
            tool?: string;
            arguments?: string;
            reason?: string;
            signal?: string;
            outcome?: string;
        };
        RunDoneEvent: {
            status: components["schemas"]["RunStatus"];
            result?: unknown;
            error?: components["schemas"]["RunError"];
        };
        BatchRunEvent: {
            run_id: string;
            status: components["schemas"]["RunStatus"];
        };
        BatchDoneEvent: {
            counts: {
                [key: string]: number;
            };
        };
        RunError: {
            code: string;
            message: string;
            stage?: string;
            retryable?: boolean;
            details?: unknown;
        };
        StageView: {
            name: string;
            iterations?: number;
            /** @enum {string} */
            status: "pending" | "running" | "retrying" | "completed" | "skipped" | "failed" | "cancelled";
            attempts: number;
            started_at: string | null;
            finished_at: string | null;
            error: components["schemas"]["RunError"] | null;
            agent?: {
                model: string;
                turns: number;
                usage: {
                    prompt_tokens: number;
                    completion_tokens: number;
                };
                cost_usd: number;
                messages: ({
                    /** @constant */
                    role: "system";
                    content: string;
                } | {
                    /** @constant */
                    role: "user";
                    content: string;
                } | {
                    /** @constant */
                    role: "assistant";
                    turn: number;
                    content: string | null;
                    tool_calls: {
                        id: string;
                        tool: string;
                        arguments: string;
                    }[];
                    usage: {
                        prompt_tokens: number;
                        completion_tokens: number;
                    };
                    cost_usd?: number;
                    at: string;
                } | {
                    /** @constant */
                    role: "tool";
                    turn: number;
                    call_id: string;
                    tool: string;
                    content: string;
                    is_error: boolean;
                    at: string;
                })[];
            };
            /** @description A child pipeline step's child run: GET /v1/runs/{child_run} */
            child_run?: string;
            /** @description The on_error step that ran when this one failed; its output stands for this step's */
            fallback?: string;
        };
        RunSummary: {
            run_id: string;
            kind: string;
            status: components["schemas"]["RunStatus"];
            progress: number;
            created_at: string;
            updated_at: string;
            batch_id: string | null;
            pipeline: {
                name: string;
                version: number;
            } | null;
            parent?: {
                run_id: string;
                stage: string;
            };
            poll_url: string;
            events_url: string;
            /** @description A preview of the input: its `topic`, `title`, `name` or `project.name`, at most 120 characters */
            topic: string | null;
            /** @description The result's `title` once the run has completed (a story's title), at most 120 characters */
            title: string | null;
            /** @description The run's input, with `fields=request` */
            request?: unknown;
            /** @description Its stages, with `fields=stages` */
            stages?: components["schemas"]["StageView"][];
            /** @description Its result, with `fields=result` */
            result?: unknown | null;
            /** @description Why it failed, with `fields=error` */
            error?: components["schemas"]["RunError"] | null;
        };
        ScheduleView: {
            name: string;
            pipeline: string;
            version: number | null;
            cron: string | null;
            /** @description The interval as it was given (`3s`, or ms) */
            every: (number | string) | null;
            /** @description The interval in ms */
            every_ms: number | null;
            timezone: string | null;
            input: {
                [key: string]: unknown;
            };
            /** @description Its runs' priority class (null: the default, 6) */
            priority: number | null;
            /** @enum {string} */
            catch_up: "none" | "latest" | "all";
            /** @description With catch_up all: the most missed ticks run */
            catch_up_max: number | null;
            paused: boolean;
            created_at: string;
            updated_at: string;
            /** @description When the next tick is due; null while paused */
            next_run_at: string | null;
            last_run: {
                run_id: string;
                /** @description When the tick was due (ISO 8601) */
                at: string;
                /** @description The run's status now; null once it is gone (retention) */
                status: components["schemas"]["RunStatus"] | null;
            } | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    startStory: {
        parameters: {
            query?: {
                /** @description A webhook told once when the run ends (`notify.url`), signed; its host must be in `WEBHOOK_ALLOW`, or the story is refused with 400 */
                notify_url?: string;
                /** @description Its priority class: 1 goes first, 9 last (default 3, ahead of batch work at 6) */
                priority?: number;
            };
            header?: {
                /** @description The same key with the same body answers the same run (or batch); with another body, 409 */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StoryRequest"];
            };
        };
        responses: {
            /** @description The run is recorded and its first steps are queued */
            202: {
                headers: {
                    /** @description The resource made (its `poll_url`) */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunAccepted"];
                };
            };
            /** @description A bad body (`invalid_parameters`, `invalid_json`), or a `notify_url` whose host WEBHOOK_ALLOW does not list (`invalid_notify`, naming `notify.url`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `run` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`); or the request was made with the browser session cookie alone, not from this origin (`cross_origin`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The `Idempotency-Key` was used with another body (`idempotency_conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over its limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON (`unsupported_media_type`), or its `Content-Encoding` is unknown (`unsupported_encoding`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    startAceflowRun: {
        parameters: {
            query?: never;
            header?: {
                /** @description The same key with the same body answers the same run (or batch); with another body, 409 */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AceflowRunRequest"];
            };
        };
        responses: {
            /** @description The run is recorded; `stages` are the stages it will write, in order */
            202: {
                headers: {
                    /** @description The resource made (its `poll_url`) */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AceflowRunAccepted"];
                };
            };
            /** @description A bad or missing body, one nested deeper than 64 levels, an analysis breaking the data rules, or a stage range outside the mode (`invalid_parameters`, `invalid_json`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `run` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`); or the request was made with the browser session cookie alone, not from this origin (`cross_origin`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The `Idempotency-Key` was used with another body (`idempotency_conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over its limit (`payload_too_large`), or a run's input is over `RUN_MAX_INPUT_BYTES` (`input_too_large`; `ACEFLOW_RUN_MAX_INPUT_BYTES` for an AceFlow run), or a batch's inputs together over `BATCH_MAX_INPUT_BYTES` (`batch_too_large`); `details` names the limit and its variable */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body's `Content-Encoding` is unknown (`unsupported_encoding`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRuns: {
        parameters: {
            query?: {
                /** @description Runs to skip, newest first (the newest 10,000 are listed) */
                offset?: number;
                /** @description Most runs in the page; a page also stops before passing the listing budget (`LIST_PAGE_MAX_BYTES`, default 4 MiB) */
                limit?: number;
                status?: components["schemas"]["RunStatus"];
                /** @description Only runs of this pipeline */
                pipeline?: string;
                /** @description What to add to each summary, as the run's own URL gives it: `request` (or `input`), `result`, `stages`, `error`, comma-separated */
                fields?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of runs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunList"];
                };
            };
            /** @description A bad `offset`, `limit`, `status`, `pipeline` or `fields` (`invalid_parameters`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `read` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A run id, `run_` and 32 hex digits; any other answers 404 */
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunView"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `read` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such run (`run_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A run id, `run_` and 32 hex digits; any other answers 404 */
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The cancelled run */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunView"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `run` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`); or the request was made with the browser session cookie alone, not from this origin (`cross_origin`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such run (`run_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The run has already completed or failed (`run_finished`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    followRun: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the events after this one; without it, from the start */
                "Last-Event-ID"?: string;
            };
            path: {
                /** @description A run id, `run_` and 32 hex digits; any other answers 404 */
                runId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run's events: `stage` (a completed stage's with the run's progress), `content`, `reset`, `error`, an agent step's `turn`, `tool_call` and `tool_result`, `done` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        /** @description The event id: send it back as `Last-Event-ID` to resume after it */
                        id: string;
                        /** @constant */
                        event: "stage";
                        data: components["schemas"]["RunStageEvent"];
                    } | {
                        /** @description The event id: send it back as `Last-Event-ID` to resume after it */
                        id: string;
                        /** @constant */
                        event: "content";
                        data: components["schemas"]["RunContentEvent"];
                    } | {
                        /** @description The event id: send it back as `Last-Event-ID` to resume after it */
                        id: string;
                        /** @constant */
                        event: "reset";
                        data: components["schemas"]["RunResetEvent"];
                    } | {
                        /** @description The event id: send it back as `Last-Event-ID` to resume after it */
                        id: string;
                        /** @constant */
                        event: "error";
                        data: components["schemas"]["RunErrorEvent"];
                    } | {
                        /** @description The event id: send it back as `Last-Event-ID` to resume after it */
                        id: string;
                        /** @constant */
                        event: "turn";
                        data: components["schemas"]["RunTurnEvent"];
                    } | {
                        /** @description The event id: send it back as `Last-Event-ID` to resume after it */
                        id: string;
                        /** @constant */
                        event: "tool_call";
                        data: components["schemas"]["RunTool_callEvent"];
                    } | {
                        /** @description The event id: send it back as `Last-Event-ID` to resume after it */
                        id: string;
                        /** @constant */
                        event: "tool_result";
                        data: components["schemas"]["RunTool_resultEvent"];
                    } | {
                        /** @description The event id: send it back as `Last-Event-ID` to resume after it */
                        id: string;
                        /** @constant */
                        event: "waiting";
                        data: components["schemas"]["RunWaitingEvent"];
                    } | {
                        /** @description The event id: send it back as `Last-Event-ID` to resume after it */
                        id: string;
                        /** @constant */
                        event: "done";
                        data: components["schemas"]["RunDoneEvent"];
                    };
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `read` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such run (`run_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`), or this server holds the most event streams it serves at once (`sse_capacity`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listBatches: {
        parameters: {
            query?: {
                offset?: number;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of batches */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BatchList"];
                };
            };
            /** @description A bad `offset` or `limit` (`invalid_parameters`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `read` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    startBatch: {
        parameters: {
            query?: never;
            header?: {
                /** @description The same key with the same body answers the same run (or batch); with another body, 409 */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BatchRequest"] | components["schemas"]["PipelineBatchRequest"];
            };
        };
        responses: {
            /** @description The batch and its runs are recorded */
            202: {
                headers: {
                    /** @description The resource made (its `poll_url`) */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BatchAccepted"];
                };
            };
            /** @description A bad body, an item that is not a valid input (`invalid_parameters`, `invalid_json`, `invalid_input`), or a `notify.url` whose host WEBHOOK_ALLOW does not list (`invalid_notify`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `run` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`); or the request was made with the browser session cookie alone, not from this origin (`cross_origin`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such pipeline or version (`pipeline_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The `Idempotency-Key` was used with another body (`idempotency_conflict`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over its limit (`payload_too_large`), or a run's input is over `RUN_MAX_INPUT_BYTES` (`input_too_large`; `ACEFLOW_RUN_MAX_INPUT_BYTES` for an AceFlow run), or a batch's inputs together over `BATCH_MAX_INPUT_BYTES` (`batch_too_large`); `details` names the limit and its variable */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON (`unsupported_media_type`), or its `Content-Encoding` is unknown (`unsupported_encoding`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getBatch: {
        parameters: {
            query?: {
                offset?: number;
                limit?: number;
            };
            header?: never;
            path: {
                /** @description A batch id, `batch_` and 32 hex digits; any other answers 404 */
                batchId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The batch */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BatchView"];
                };
            };
            /** @description A bad `offset` or `limit` (`invalid_parameters`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `read` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such batch (`batch_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    followBatch: {
        parameters: {
            query?: never;
            header?: {
                /** @description Replays the events after this one; without it, from the start */
                "Last-Event-ID"?: string;
            };
            path: {
                /** @description A batch id, `batch_` and 32 hex digits; any other answers 404 */
                batchId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The batch's events: `run`, `done` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": {
                        /** @description The event id: send it back as `Last-Event-ID` to resume after it */
                        id: string;
                        /** @constant */
                        event: "run";
                        data: components["schemas"]["BatchRunEvent"];
                    } | {
                        /** @description The event id: send it back as `Last-Event-ID` to resume after it */
                        id: string;
                        /** @constant */
                        event: "done";
                        data: components["schemas"]["BatchDoneEvent"];
                    };
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `read` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such batch (`batch_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`), or this server holds the most event streams it serves at once (`sse_capacity`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listInbox: {
        parameters: {
            query?: {
                /** @description Items to skip, oldest first */
                offset?: number;
                limit?: number;
                /** @description Only what runs of this pipeline wait for */
                pipeline?: string;
                /** @description Only what this run waits for */
                run_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the inbox */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            run_id: string;
                            pipeline: string;
                            stage: string;
                            /** @enum {string} */
                            kind: "approval" | "signal";
                            key: string;
                            created_at: string;
                            timeout_at: string | null;
                            tool?: string;
                            /** @description The call's arguments as the model gave them, as an object: the shape an approval's `arguments` takes, so an edit can start from it */
                            arguments?: {
                                [key: string]: unknown;
                            };
                            /** @description The model's reason: in a listing, its first 500 characters (`reason_truncated` when cut); whole at `GET answer_url` */
                            reason?: string | null;
                            /** @description The reason was cut to its first 500 characters in this listing; `GET answer_url` gives it whole */
                            reason_truncated?: boolean;
                            schema: {
                                [key: string]: unknown;
                            } | null;
                            answer_url: string;
                        }[];
                        offset: number;
                        limit: number;
                        total: number;
                        next_offset: number | null;
                        /** @description The page stopped before `limit` items because its bytes would have passed the listing budget (`LIST_PAGE_MAX_BYTES`): ask again from `next_offset` */
                        truncated?: boolean;
                    };
                };
            };
            /** @description A bad `offset`, `limit`, `pipeline` or `run_id` (`invalid_parameters`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `read` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A run id, `run_` and 32 hex digits; any other answers 404 */
                runId: string;
                /** @description The call's key in the inbox (the model's call id); any other answers 404 */
                callId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The waiting call */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run_id: string;
                        pipeline: string;
                        stage: string;
                        /** @enum {string} */
                        kind: "approval" | "signal";
                        key: string;
                        created_at: string;
                        timeout_at: string | null;
                        tool?: string;
                        /** @description The call's arguments as the model gave them, as an object: the shape an approval's `arguments` takes, so an edit can start from it */
                        arguments?: {
                            [key: string]: unknown;
                        };
                        /** @description The model's reason: in a listing, its first 500 characters (`reason_truncated` when cut); whole at `GET answer_url` */
                        reason?: string | null;
                        /** @description The reason was cut to its first 500 characters in this listing; `GET answer_url` gives it whole */
                        reason_truncated?: boolean;
                        schema: {
                            [key: string]: unknown;
                        } | null;
                        answer_url: string;
                    };
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `read` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The run waits for no approval of this call (`approval_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    answerApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A run id, `run_` and 32 hex digits; any other answers 404 */
                runId: string;
                /** @description The call's key in the inbox (the model's call id); any other answers 404 */
                callId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description true: the call is made (with `arguments` when given); false: the model is told it was refused */
                    approve: boolean;
                    /** @description Edited arguments, checked against the tool's schema (400 naming the field) */
                    arguments?: {
                        [key: string]: unknown;
                    };
                    /** @description Why; the model reads it with a refusal */
                    note?: string;
                };
            };
        };
        responses: {
            /** @description The answer is recorded */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run_id: string;
                        call_id: string;
                        approve: boolean;
                        /** @enum {string} */
                        status: "recorded";
                    };
                };
            };
            /** @description A bad body (`invalid_approval`), or edited arguments that do not fit the tool's schema (`invalid_arguments`, each problem naming its field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `run` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`); or the request was made with the browser session cookie alone, not from this origin (`cross_origin`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such run (`run_not_found`), or it waits for no approval of this call (`approval_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The call was decided already (`approval_decided`), or the run has ended (`run_finished`, with `details.status`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over its limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON (`unsupported_media_type`), or its `Content-Encoding` is unknown (`unsupported_encoding`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendSignal: {
        parameters: {
            query?: never;
            header?: {
                /** @description Kept with the signal (its first 200 characters); the first signal of a name stands whatever the key */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description A run id, `run_` and 32 hex digits; any other answers 404 */
                runId: string;
                /** @description The signal's name, as the wait step gives it; any other answers 404 */
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": unknown;
            };
        };
        responses: {
            /** @description A signal of this name was received before; the first stands */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run_id: string;
                        signal: string;
                        /** @enum {string} */
                        status: "recorded" | "duplicate";
                    };
                };
            };
            /** @description The signal is recorded */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run_id: string;
                        signal: string;
                        /** @enum {string} */
                        status: "recorded" | "duplicate";
                    };
                };
            };
            /** @description A payload that does not fit the signal's schema (`invalid_signal`, each problem naming its field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `run` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`); or the request was made with the browser session cookie alone, not from this origin (`cross_origin`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such run (`run_not_found`), or no step of its pipeline waits for this signal (`signal_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The run has ended (`run_finished`, with `details.status`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over its limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON (`unsupported_media_type`), or its `Content-Encoding` is unknown (`unsupported_encoding`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listPipelines: {
        parameters: {
            query?: {
                /** @description Pipelines to skip, in the order their latest version was registered */
                offset?: number;
                /** @description Most pipelines in the page; a page also stops before passing the listing budget (`LIST_PAGE_MAX_BYTES`) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the registered pipelines */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PipelineList"];
                };
            };
            /** @description A bad `offset` or `limit` (`invalid_parameters`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `read` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPipeline: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A pipeline name; any other answers 404 */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The pipeline */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PipelineView"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `read` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such pipeline, or no such version of it (`pipeline_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    registerPipeline: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A pipeline name; any other answers 404 */
                name: string;
            };
            cookie?: never;
        };
        /** @description The definition, as JSON or YAML */
        requestBody: {
            content: {
                "application/json": components["schemas"]["PipelineDefinition"];
                "application/yaml": components["schemas"]["PipelineDefinition"];
                "application/x-yaml": components["schemas"]["PipelineDefinition"];
                "text/yaml": components["schemas"]["PipelineDefinition"];
                "text/x-yaml": components["schemas"]["PipelineDefinition"];
                "text/plain": components["schemas"]["PipelineDefinition"];
            };
        };
        responses: {
            /** @description That definition is already the latest (`unchanged`) */
            200: {
                headers: {
                    /** @description The resource made (its `poll_url`) */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PipelineRegistered"];
                };
            };
            /** @description A new version is stored */
            201: {
                headers: {
                    /** @description The resource made (its `poll_url`) */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PipelineRegistered"];
                };
            };
            /** @description The definition is not valid (`invalid_pipeline`, every problem in `details.problems`), or the body is not JSON or YAML */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `admin` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`); or the request was made with the browser session cookie alone, not from this origin (`cross_origin`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The name is not a pipeline name (`pipeline_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description That version exists with another definition, or is not above the highest the pipeline has had (`version_conflict`); the pipeline has as many versions as it may (`version_limit`), or there are as many pipelines as there may be (`pipeline_limit`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over its limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is neither JSON nor YAML (`unsupported_media_type`), or its `Content-Encoding` is unknown */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deletePipeline: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A pipeline name; any other answers 404 */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The pipeline is deleted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        name: string;
                        /** @constant */
                        outcome: "deleted";
                        /** @description The versions deleted (none for a pipeline stored with no valid version) */
                        versions: number[];
                    };
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `admin` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`); or the request was made with the browser session cookie alone, not from this origin (`cross_origin`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such pipeline, or no such version of it (`pipeline_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A pipeline shipped with Switchyard, whose routes run it (`pipeline_shipped`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deletePipelineVersion: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A pipeline name; any other answers 404 */
                name: string;
                /** @description A version, 1 to 1000000000 */
                version: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The version is deleted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        name: string;
                        version: number;
                        /** @constant */
                        outcome: "deleted";
                        /** @description The latest version left, or null when none is (the pipeline is gone) */
                        latest: number | null;
                    };
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `admin` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`); or the request was made with the browser session cookie alone, not from this origin (`cross_origin`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such pipeline, or no such version of it (`pipeline_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description It is the last version of a pipeline shipped with Switchyard, whose routes run it (`pipeline_shipped`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    startPipelineRun: {
        parameters: {
            query?: {
                /** @description The version to run (default: the latest) */
                version?: number;
                /** @description A webhook told once when the run ends (`notify.url`): its summary POSTed, signed with `Switchyard-Signature`; its host must be in `WEBHOOK_ALLOW`, or the run is refused with 400 */
                notify_url?: string;
                /** @description Its priority class: 1 goes first, 9 last (default 3, ahead of batch work at 6) */
                priority?: number;
            };
            header?: {
                /** @description The same key with the same body answers the same run (or batch); with another body, 409 */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description A pipeline name; any other answers 404 */
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description The run is recorded and its first steps are queued */
            202: {
                headers: {
                    /** @description The resource made (its `poll_url`) */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PipelineRunAccepted"];
                };
            };
            /** @description A bad `version`, an input the pipeline refuses (`invalid_parameters`, `invalid_json`, `invalid_input`), or a `notify_url` whose host WEBHOOK_ALLOW does not list (`invalid_notify`, naming `notify.url`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `run` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`); or the request was made with the browser session cookie alone, not from this origin (`cross_origin`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such pipeline, or no such version of it (`pipeline_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The `Idempotency-Key` was used with another body (`idempotency_conflict`), or the version was stored before checks it now fails: delete it (`pipeline_unusable`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over its limit (`payload_too_large`), or a run's input is over `RUN_MAX_INPUT_BYTES` (`input_too_large`; `ACEFLOW_RUN_MAX_INPUT_BYTES` for an AceFlow run), or a batch's inputs together over `BATCH_MAX_INPUT_BYTES` (`batch_too_large`); `details` names the limit and its variable */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON (`unsupported_media_type`), or its `Content-Encoding` is unknown (`unsupported_encoding`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPipelineSchema: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A JSON Schema (draft 2020-12) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Redis and every tool service are healthy */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrchestratorHealth"];
                };
            };
            /** @description Something is not (`degraded`); the report says what */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrchestratorHealth"];
                };
            };
        };
    };
    getLiveness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Alive (`alive`) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "alive" | "ready" | "starting" | "draining" | "degraded";
                        pid: number;
                        redis?: {
                            healthy: boolean;
                            latency_ms: number;
                            error?: string;
                        };
                    };
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready (`ready`) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "alive" | "ready" | "starting" | "draining" | "degraded";
                        pid: number;
                        redis?: {
                            healthy: boolean;
                            latency_ms: number;
                            error?: string;
                        };
                    };
                };
            };
            /** @description Not ready: `draining` after SIGTERM, or `degraded` (Redis unreachable; `redis` says why) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "alive" | "ready" | "starting" | "draining" | "degraded";
                        pid: number;
                        redis?: {
                            healthy: boolean;
                            latency_ms: number;
                            error?: string;
                        };
                    };
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text exposition format 0.0.4 */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; version=0.0.4; charset=utf-8": string;
                };
            };
        };
    };
    getOpenApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    getApiReference: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An HTML page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
        };
    };
    listSchedules: {
        parameters: {
            query?: {
                /** @description Schedules to skip, by name */
                offset?: number;
                /** @description Most schedules in the page */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of schedules */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleList"];
                };
            };
            /** @description A bad `offset` or `limit` (`invalid_parameters`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `read` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A schedule's name: 1 to 64 letters, digits, `-` and `_`; any other answers 404 */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The schedule */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleView"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `read` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such schedule (`schedule_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A schedule's name: 1 to 64 letters, digits, `-` and `_`; any other answers 404 */
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ScheduleRequest"];
            };
        };
        responses: {
            /** @description The schedule is replaced */
            200: {
                headers: {
                    /** @description The resource made (its `poll_url`) */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleView"];
                };
            };
            /** @description The schedule is made */
            201: {
                headers: {
                    /** @description The resource made (its `poll_url`) */
                    Location: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleView"];
                };
            };
            /** @description The schedule is not valid (`invalid_schedule`, each problem naming its field in `details.problems`: `pipeline`, `version`, `cron`, `every`, `timezone`, `input…`), or the body is not JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `admin` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`); or the request was made with the browser session cookie alone, not from this origin (`cross_origin`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The name is not a schedule's name (`schedule_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description There are as many schedules as there may be (`schedule_limit`, `SCHEDULES_MAX`) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over its limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON (`unsupported_media_type`), or its `Content-Encoding` is unknown (`unsupported_encoding`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A schedule's name: 1 to 64 letters, digits, `-` and `_`; any other answers 404 */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The schedule is deleted */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        name: string;
                        /** @constant */
                        deleted: true;
                    };
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `admin` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`); or the request was made with the browser session cookie alone, not from this origin (`cross_origin`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such schedule (`schedule_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    pauseSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A schedule's name: 1 to 64 letters, digits, `-` and `_`; any other answers 404 */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The schedule */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleView"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `admin` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`); or the request was made with the browser session cookie alone, not from this origin (`cross_origin`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such schedule (`schedule_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    resumeSchedule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A schedule's name: 1 to 64 letters, digits, `-` and `_`; any other answers 404 */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The schedule */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScheduleView"];
                };
            };
            /** @description No valid API key (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key (or the session's key) lacks the `admin` scope this operation needs (`insufficient_scope`, naming it in `details.required_scope`); or the request was made with the browser session cookie alone, not from this origin (`cross_origin`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No such schedule (`schedule_not_found`) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDashboard: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An HTML page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
        };
    };
    getBrowserSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session, if any */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        open: boolean;
                        /** @description The key's scopes, when open */
                        scopes?: ("read" | "run" | "admin")[];
                    };
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    openBrowserSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    key: string;
                };
            };
        };
        responses: {
            /** @description The session is open */
            204: {
                headers: {
                    /** @description `sy_session=…; Path=/; HttpOnly; SameSite=Strict` (no Max-Age: the browser forgets it with the browser session; the server ends the session itself) */
                    "Set-Cookie": string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A bad body or parameter, named in `message` (`invalid_parameters`, `invalid_json`, `invalid_idempotency_key`) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key is not valid (`unauthorized`) */
            401: {
                headers: {
                    /** @description `Bearer realm="switchyard"` */
                    "WWW-Authenticate": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over its limit (`payload_too_large`) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON (`unsupported_media_type`), or its `Content-Encoding` is unknown (`unsupported_encoding`) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many at once: too many wrong API keys from this client address lately (`too_many_failed_keys`: every request of it presenting a key is refused until then), or too many streams open for this API key (`too_many_streams`); try again after `Retry-After` seconds */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    closeBrowserSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session is ended and the cookie cleared */
            204: {
                headers: {
                    /** @description `sy_session=…; Path=/; HttpOnly; SameSite=Strict` (no Max-Age: the browser forgets it with the browser session; the server ends the session itself) */
                    "Set-Cookie": string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Redis is unreachable (`redis_unavailable`); try again after `Retry-After` seconds */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After": string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
