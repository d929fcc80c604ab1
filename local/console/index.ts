/**
 * The developer console of the local runtime, at `{base}/_local/` (the gateway mounts it at
 * `/_local`; `/_local/stripe` and other mounts with a longer prefix stay theirs): one
 * server-rendered page with the orders and their fulfilment effects, Pay / Decline / Cancel
 * on the orders still open, the e-mail outbox (attachments downloadable), operations
 * notifications, the SMS handed to the SMS simulator with their receipts, the SMS sent through
 * the AWS End User Messaging emulator and the messages SIMs sent (issue #21), every customer's
 * lifecycle webhook subscriptions with their delivery attempts (and a form subscribing the
 * webhook inbox), the SIMs with a form changing their status and usage (issue #15), the
 * operator feed's applied messages and refused lines (issue #20), the table-stream records its
 * consumers set aside (issue #31), and the webhook inbox's deliveries. No script, no framework: HTML escaped by construction (./html.ts), a
 * strict Content-Security-Policy, loopback hosts only, and every POST checked for the same
 * origin and the instance's form token (./http.ts). Errors are JSON `{detail, code}`
 * (docs/local-runtime.md lists the codes). It never exists in the deployed stack.
 *
 * Sections are listed in `defaultSections`; a new one is a ConsoleSection (./section.ts).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, isApiError } from '../../shared/errors/api-error';
import { ActivityLog } from './activity';
import { html } from './html';
import { checkFormToken, checkHost, checkSameOrigin, readForm, send, sendError, sendHtml } from './http';
import { consoleIcon, consolePage, consolePath, consoleStylesheet } from './page';
import type { ConsoleRoute, ConsoleSection, ConsoleView } from './section';
import { inboxSection } from './sections/inbox';
import { ordersSection } from './sections/orders';
import { operationsSection, outboxSection } from './sections/outbox';
import { simsSection } from './sections/sims';
import { smsSection } from './sections/sms';
import { awsSmsSection } from './sections/aws-sms';
import { webhooksSection } from './sections/webhooks';
import { feedSection } from './sections/feed';
import { streamFailuresSection } from './sections/stream-failures';
import type { ConsoleSources } from './sources';
import { logger } from '../../shared/observability/logger';

export type { ConsoleSources } from './sources';

/** A developer console: the handler the gateway mounts at `/_local`. */
export interface DeveloperConsole {
  /** Answers one request; `path` is below `/_local` (`/` for the page). */
  handle(request: IncomingMessage, response: ServerResponse, path: string, rawQuery: string): Promise<void>;
  /** The sections, in page order. */
  sections: ConsoleSection[];
}

/** The console's sections, in page order. Add a section here. */
export const defaultSections = (sources: ConsoleSources, activity: ActivityLog): ConsoleSection[] => [
  ordersSection(sources, activity),
  outboxSection(sources),
  operationsSection(sources),
  smsSection(sources),
  awsSmsSection(sources),
  webhooksSection(sources, activity),
  simsSection(sources, activity),
  feedSection(sources),
  streamFailuresSection(sources),
  inboxSection(sources),
];

const activitySection = (activity: ActivityLog): ConsoleSection => ({
  id: 'activity',
  title: 'Console activity',
  render: async () => {
    const entries = activity.entries();
    return entries.length === 0
      ? html`<p class="empty">Nothing done from this page yet.</p>`
      : html`<ul class="activity">${entries.map((entry) => html`<li class="notice">${entry.at}: ${entry.summary}</li>`)}</ul>`;
  },
});

const decode = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new ApiError(404, 'not_found', 'Not found.');
  }
};

/**
 * Creates the console over the runtime's parts. `sections` replaces the default list (tests,
 * or a runtime that adds its own); the activity of its actions is always shown first.
 */
export const createDeveloperConsole = (
  sources: ConsoleSources,
  options: { sections?: (sources: ConsoleSources, activity: ActivityLog) => ConsoleSection[] } = {},
): DeveloperConsole => {
  // A random value of this instance, printed only into its own pages: a POST must carry it.
  const formToken = randomBytes(24).toString('base64url');
  const activity = new ActivityLog();
  const sections = [activitySection(activity), ...(options.sections ?? defaultSections)(sources, activity)];
  const routes: ConsoleRoute[] = sections.flatMap((section) => section.routes ?? []);

  const actionForm: ConsoleView['actionForm'] = (path, label, { fields = {}, controls, className } = {}) =>
      html`<form method="post" action="${consolePath}${path}">${Object.entries(fields).map(
        ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
      )}${controls}<input type="hidden" name="token" value="${formToken}"><button type="submit"${className ? html` class="${className}"` : ''}>${label}</button></form>`;

  const page = async (query: URLSearchParams): Promise<ReturnType<typeof consolePage>> => {
    const view: ConsoleView = { actionForm, query };
    const rendered = await Promise.all(
      sections.map(async (section) => {
        const rendered = await section.render(view);
        return 'folded' in rendered ? { id: section.id, title: section.title, ...rendered } : { id: section.id, title: section.title, body: rendered };
      }),
    );
    return consolePage({
      title: 'SIM service: local developer console',
      intro: html`<p>What this local runtime did: orders and their fulfilment, the e-mails and SMS it sent, the webhooks it delivered. API: <code>${sources.baseUrl()}</code>.</p>`,
      sections: rendered,
      renderedAt: new Date(),
    });
  };

  const answer = async (request: IncomingMessage, response: ServerResponse, path: string, rawQuery: string): Promise<void> => {
    checkHost(request);
    const method = (request.method ?? 'GET').toUpperCase();
    const readMethod = method === 'GET' || method === 'HEAD';
    if (path === '/' || path === '/console.css' || path === '/favicon.svg') {
      if (!readMethod) throw new ApiError(405, 'method_not_allowed', `${method} is not allowed here: use GET.`, {}, { Allow: 'GET, HEAD' });
      if (path === '/console.css') send(response, 200, consoleStylesheet, { 'Content-Type': 'text/css; charset=utf-8' });
      else if (path === '/favicon.svg') send(response, 200, consoleIcon, { 'Content-Type': 'image/svg+xml' });
      else sendHtml(response, 200, await page(new URLSearchParams(rawQuery)));
      return;
    }
    const matching = routes.flatMap((route) => {
      const match = route.path.exec(path);
      return match ? [{ route, params: match.slice(1).map((value) => decode(value ?? '')) }] : [];
    });
    // The gateway's own 404 for an unknown `/_local/` path, as before the console was mounted.
    if (matching.length === 0) throw new ApiError(404, 'not_found', 'Not found.');
    const found = matching.find(({ route }) => route.method === method || (route.method === 'GET' && method === 'HEAD'));
    if (!found) {
      const allowed = [...new Set(matching.flatMap(({ route }) => (route.method === 'GET' ? ['GET', 'HEAD'] : [route.method])))].join(', ');
      throw new ApiError(405, 'method_not_allowed', `${method} is not allowed here: use ${allowed}.`, {}, { Allow: allowed });
    }
    let form = new URLSearchParams();
    if (found.route.method === 'POST') {
      checkSameOrigin(request);
      form = await readForm(request);
      checkFormToken(form, formToken);
    }
    await found.route.handle({ request, response, params: found.params, query: new URLSearchParams(rawQuery), form });
  };

  return {
    sections,
    handle: async (request, response, path, rawQuery) => {
      try {
        await answer(request, response, path, rawQuery);
      } catch (error) {
        if (response.headersSent) {
          response.destroy();
          return;
        }
        if (isApiError(error)) {
          request.resume();
          sendError(request, response, error);
          return;
        }
        logger.error('developer console failed', { component: 'local-console', path, error: error instanceof Error ? error : String(error) });
        request.resume();
        sendError(request, response, new ApiError(500, 'internal_error', 'The developer console failed; the runtime\'s log says why.'));
      }
    },
  };
};
