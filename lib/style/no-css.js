// What `#site-css` is in the browser's bundles, and `#dev-styles` outside `next dev` (package.json "imports").
const none = "";
export default none;
