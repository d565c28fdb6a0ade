// What `#icon-markup` is in the browser's bundles (package.json "imports"): no icon's shapes.
const none = {};
export default none;
