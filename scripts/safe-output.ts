import { escapeControls, escapeControlsInJson } from "@/server/escape-controls.mjs";

/** JSON text a command prints or exports: see escapeControlsInJson. */
export const jsonSafe = escapeControlsInJson;

// Every control and format character a visitor typed or a browser sent is a visible escape: a printed line keeps
// only its line end, an export also CSV's \r\n and the tabs RFC 4180 quotes.
export function safeSinks(print: (line: string) => void, write: (text: string) => void) {
  return {
    print: (line: string) => print(escapeControls(line, "\n")),
    write: (text: string) => write(escapeControls(text, "\r\n\t")),
  };
}
