/** The floor builds with Next's defaults. */
const nextConfig = {};

export default nextConfig;
