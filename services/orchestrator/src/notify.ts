/**
 * A run's or batch's `notify` at submission: its URL checked against WEBHOOK_ALLOW (400 naming
 * `notify.url` otherwise), and the hook that records its target once the run or batch is
 * recorded, before it can end.
 */
import { HttpError } from '@switchyard/http-kit';
import { checkNotifyUrl, NotifyUrlError, problemsRefusal } from '@switchyard/pipeline';
import type { AppDeps } from './deps.js';

/** What to pass as `onRecorded` for `notify` (undefined: no webhook); throws the 400 for a URL not allowed. */
export function notifyHook(deps: Pick<AppDeps, 'notify'>, kind: 'run' | 'batch', url: string | undefined): ((id: string) => Promise<void>) | undefined {
  if (url === undefined) return undefined;
  try {
    const checked = checkNotifyUrl(url, deps.notify.allow).href;
    return (id) => deps.notify.notifier.recordTarget(`${kind}:${id}`, checked);
  } catch (error) {
    if (error instanceof NotifyUrlError) throw new HttpError({ status: 400, code: 'invalid_notify', ...problemsRefusal('notify.url is refused', error.problems) });
    throw error;
  }
}
