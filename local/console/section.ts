/**
 * What a part of the developer console is: a titled section of the page and, optionally, the
 * console paths it serves. A new part (another source of local events, a form that changes
 * something) is one more ConsoleSection in local/console/sections/ and one entry in the list
 * of local/console/index.ts; the page, navigation, security headers, errors and the
 * cross-site check of every POST come with it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Html } from './html';

/** What a section's render gets: how to make a form the console will accept, and the page's query. */
export interface ConsoleView {
  /** The page request's query string: a section's own paging and filters (`sims_page`, `sims_q`, ...), prefixed with its id. */
  query: URLSearchParams;
  /**
   * A POST form to a console path (below `/_local`) with one button, carrying the instance's
   * form token; `fields` become hidden inputs, `controls` (inputs, selects, labels the user
   * fills in) come before the button. Every POST route gets only forms made here.
   */
  actionForm(path: string, label: string, options?: { fields?: Record<string, string>; controls?: Html; className?: string }): Html;
}

/** One request to a section's route. */
export interface ConsoleRequest {
  request: IncomingMessage;
  response: ServerResponse;
  /** The path's captures (the route's RegExp groups), URL-decoded. */
  params: string[];
  /** The query string's parameters. */
  query: URLSearchParams;
  /** A POST's form, already checked for the same origin and the form token; empty for GET. */
  form: URLSearchParams;
}

/** A path a section serves, below `/_local` (e.g. `^/orders/([^/]+)/(pay|decline|cancel)$`). */
export interface ConsoleRoute {
  /** GET routes answer HEAD too. POST routes are the console's actions: same origin and form token checked first. */
  method: 'GET' | 'POST';
  path: RegExp;
  /** Answers the request; throw an ApiError for a `{detail, code}` error answer. */
  handle(exchange: ConsoleRequest): Promise<void>;
}

/** One part of the console page. */
export interface ConsoleSection {
  /** The anchor of the section on the page (`#orders`) and its id. */
  id: string;
  title: string;
  /**
   * The section's content, read fresh for each page view; with `folded`, the section starts
   * folded (a section that has nothing to show yet, so the page stays short).
   */
  render(view: ConsoleView): Promise<Html | { body: Html; folded: boolean }>;
  routes?: ConsoleRoute[];
}
