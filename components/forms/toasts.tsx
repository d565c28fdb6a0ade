"use client";

import { useEffect, useState, type ComponentType } from "react";
import { createPortal } from "react-dom";
import type * as SonnerModule from "sonner";

type Sonner = typeof SonnerModule;

/**
 * sonner is loaded on demand: when the visitor first focuses a form field, or at the latest when a toast is due. Pages
 * without a pending toast don't pay for it.
 */
let sonner: Promise<Sonner> | undefined;
const onLoad = new Set<(module: Sonner) => void>();

function loadSonner() {
  if (!sonner) {
    sonner = import("sonner");
    void sonner.then((module) => onLoad.forEach((notify) => notify(module)));
  }
  return sonner;
}

export type ToastKind = "success" | "error";

export async function showToast(kind: ToastKind, title: string, description: string) {
  const { toast } = await loadSonner();
  toast[kind](title, { description });
}

/**
 * The toast region, rendered into <body>: a section with `content-visibility` contains its fixed descendants, which
 * would put the toasts out of sight. Nothing renders before sonner loads, so the server's HTML has nothing to match.
 */
export function LazyToaster() {
  const [Toaster, setToaster] = useState<ComponentType<SonnerModule.ToasterProps> | null>(null);

  useEffect(() => {
    const mount = (module: Sonner) => setToaster(() => module.Toaster);
    onLoad.add(mount);
    if (sonner) void sonner.then(mount);
    const preload = (event: FocusEvent) => {
      if (event.target instanceof Element && event.target.closest("form")) void loadSonner();
    };
    document.addEventListener("focusin", preload);
    return () => {
      onLoad.delete(mount);
      document.removeEventListener("focusin", preload);
    };
  }, []);

  return Toaster ? createPortal(<Toaster position="top-center" richColors closeButton />, document.body) : null;
}
