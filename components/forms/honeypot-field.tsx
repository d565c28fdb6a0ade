import { honeypotName } from "@/lib/forms/honeypot";

/**
 * A trap for bots: off screen, out of the tab order and hidden from screen
 * readers, so only software that fills every field it finds fills it. The
 * server answers such a post with success and delivers nothing.
 */
export function HoneypotField({ idPrefix }: { idPrefix: string }) {
  const id = `${idPrefix}-${honeypotName}`;
  return (
    <div aria-hidden="true" className="absolute -left-[9999px] size-px overflow-hidden">
      <label htmlFor={id}>Leave this field empty</label>
      <input id={id} name={honeypotName} type="text" tabIndex={-1} autoComplete="off" defaultValue="" />
    </div>
  );
}
