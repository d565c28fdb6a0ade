import type { ComponentType } from "react";
import { LazyToaster } from "./toasts";

/**
 * Where a page shows a form: its component, given what the server serves it (serveForm: its action and, for a form that
 * texts, its consent fields), and the toast region its outcomes appear in with JavaScript on. A page mounts each form
 * through this, so none can forget the toaster (without it, a form sent by script shows no result at all).
 */
export function FormMount<Served extends object>({
  form: Form,
  served,
}: {
  form: ComponentType<Served>;
  served: Served;
}) {
  return (
    <>
      <Form {...served} />
      <LazyToaster />
    </>
  );
}
