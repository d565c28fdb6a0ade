/** A custom property app/globals.css sets on :root: how the build and the tests find the stylesheet. */
export const stylesheetMarker = "--sous-stylesheet:1";
