// The same card for X/Twitter as for Open Graph.
export { alt, contentType, default, size } from "./opengraph-image";
