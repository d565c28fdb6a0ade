/** The console's stylesheet: its text during server rendering, "" in the browser (package.json "imports"). */
declare const css: string;
export default css;
