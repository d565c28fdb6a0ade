import Link from "next/link";
import type { ReactNode } from "react";

/** A time as the console shows it: UTC, to the second; empty for none. */
export const utc = (at: number | null | undefined) =>
  at === null || at === undefined ? "" : new Date(Number(at)).toISOString().slice(0, 19).replace("T", " ");

/** A part of a console page, named by its heading. */
export function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="mt-10">
      <h2 id={id} className="text-xl font-bold">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** Asked before an owner's action is done: what will happen, then the action, or a way back that does nothing. */
export function Confirm({
  title,
  action,
  fields,
  act,
  keep,
  children,
}: {
  title: string;
  action: string;
  fields: Record<string, string>;
  act: string;
  keep: { href: string; label: string };
  children: ReactNode;
}) {
  return (
    <section aria-labelledby="confirm" className="mt-6 rounded-lg border border-red-800 bg-white p-4">
      <h2 id="confirm" className="text-lg font-bold">
        {title}
      </h2>
      <p className="mt-2">{children}</p>
      <form method="post" action={action} className="mt-3 flex items-center gap-4">
        {Object.entries(fields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <button type="submit" className={dangerButton}>
          {act}
        </button>
        <a href={keep.href} className="underline underline-offset-4">
          {keep.label}
        </a>
      </form>
    </section>
  );
}

/** A table's header row: one column header per label, right-aligned where told. */
export function HeaderRow({ labels, right = [] }: { labels: readonly string[]; right?: readonly string[] }) {
  return (
    <thead>
      <tr className="border-b border-stone-400 text-left">
        {labels.map((label) => (
          <th key={label} scope="col" className={`py-2 pr-4 ${right.includes(label) ? "text-right" : ""}`}>
            {label}
          </th>
        ))}
      </tr>
    </thead>
  );
}

type Attempt = { number: number; at: number; status: number | null; failure: string | null; sender: string };

/** A lead's delivery log: each attempt, when, what the receiver answered, and who sent it. */
export function AttemptsTable({ attempts }: { attempts: readonly Attempt[] }) {
  if (!attempts.length) return null;
  return (
    <table className="mt-3 text-sm">
      <caption className="text-left font-semibold">Attempts ({attempts.length})</caption>
      <HeaderRow labels={["#", "At (UTC)", "Answer", "By"]} />
      <tbody>
        {attempts.map((attempt) => (
          <tr key={attempt.number}>
            <td className="pr-4">{attempt.number}</td>
            <td className="pr-4">{utc(attempt.at)}</td>
            <td className="pr-4">{attempt.status ?? attempt.failure}</td>
            <td>{attempt.sender}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Terms and their values, two columns; a value's own line breaks kept (a contact request's message). */
export function Facts({ rows }: { rows: readonly (readonly [string, ReactNode])[] }) {
  return (
    <dl className="mt-2 grid gap-x-6 gap-y-1 sm:grid-cols-[max-content_minmax(0,1fr)]">
      {rows.map(([term, value]) => (
        <div key={term} className="contents">
          <dt className="font-semibold">{term}</dt>
          <dd className="wrap-anywhere whitespace-pre-wrap">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Ids and hashes, for who needs them: behind a disclosure, never among the console's own words. */
export function Details({ rows }: { rows: readonly (readonly [string, ReactNode])[] }) {
  return (
    <details className="mt-2">
      <summary className="cursor-pointer">Details</summary>
      <Facts rows={rows} />
    </details>
  );
}

/** "Last 7 days", "Last 30 days"…: each a link to `path?days=N`, the span shown marked. */
export function SpanLinks({ path, spans, days }: { path: string; spans: readonly number[]; days: number }) {
  return (
    <p className="mt-3 flex gap-4">
      {spans.map((span) => (
        <Link
          key={span}
          href={`${path}?days=${span}`}
          aria-current={span === days ? "page" : undefined}
          className="underline underline-offset-4 aria-[current=page]:font-semibold aria-[current=page]:no-underline"
        >
          Last {span} days
        </Link>
      ))}
    </p>
  );
}

export const fieldClass =
  "max-w-full rounded-lg border border-stone-500 bg-white px-3 py-2 focus-visible:outline-2 focus-visible:outline-brand-700";

/** A form's button; and one that ends or removes something. */
export const plainButton =
  "rounded-lg border border-stone-500 px-3 py-1 hover:bg-stone-100 focus-visible:outline-2 focus-visible:outline-brand-700";
export const dangerButton =
  "rounded-lg border border-red-800 px-3 py-1 text-red-800 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-brand-700";

/** A table wider than a phone scrolls in its own box, which a keyboard reaches and a screen reader names. */
export function WideTable({
  label,
  className = "",
  children,
}: {
  label: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div
      role="region"
      aria-label={label}
      tabIndex={0}
      className={`overflow-x-auto focus-visible:outline-2 focus-visible:outline-brand-700 ${className}`}
    >
      {children}
    </div>
  );
}

/** A labelled select of `values`, `value` chosen: a form's filter or a role. */
export function Choice({
  label,
  name,
  value,
  values,
}: {
  label: string;
  name: string;
  value: string;
  values: readonly string[];
}) {
  return (
    <label className="flex max-w-full min-w-0 flex-col">
      <span className="font-semibold">{label}</span>
      <select name={name} defaultValue={value} className={fieldClass}>
        {values.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </label>
  );
}
