import { escapeControls, escapeControlsInJson } from "@/server/escape-controls.mjs";

/** JSON text a command prints or exports: see escapeControlsInJson. */
export const jsonSafe = escapeControlsInJson;

/**
 * A command's two sinks, made safe: every control and format character a
 * visitor typed, or a browser sent in a header, is a visible escape. A printed
 * line keeps only its line end; an export also CSV's \r\n and the tabs RFC
 * 4180 quotes. JSON goes through jsonSafe first, so these find nothing left
 * to escape in it.
 */
export function safeSinks(print: (line: string) => void, write: (text: string) => void) {
  return {
    print: (line: string) => print(escapeControls(line, "\n")),
    write: (text: string) => write(escapeControls(text, "\r\n\t")),
  };
}
